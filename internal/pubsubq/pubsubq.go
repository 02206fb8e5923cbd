// Package pubsubq implements queue.Publisher over Google Cloud Pub/Sub with
// the official client (cloud.google.com/go/pubsub/v2), and the wire form of
// a shard message: a JSON body (queue.ShardMessage) plus the attributes
// "run" and "shard" (decimal index), which duplicate the body for filters,
// dead-letter handling and logs.
//
// Publishing is batched (up to 100 messages or 1 ms per request; Publish
// waits for its message, so a longer delay would only add latency to callers
// that publish one at a time; PublishAll fills batches) and flow
// controlled (at most 1,000 messages or 64 MiB outstanding; Publish blocks
// beyond that instead of buffering without bound).
package pubsubq

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/queue"
)

// Attribute keys of a shard message.
const (
	AttrRun   = "run"
	AttrShard = "shard"
)

// MaxMessageBytes bounds an accepted message body (Pub/Sub allows 10 MB; a
// shard message is a few hundred bytes, so anything near this is an error).
const MaxMessageBytes = 256 << 10

// DefaultSettings returns the batching and flow-control settings New uses.
func DefaultSettings() pubsub.PublishSettings {
	return pubsub.PublishSettings{
		DelayThreshold: time.Millisecond,
		CountThreshold: 100,
		ByteThreshold:  1e6,
		Timeout:        60 * time.Second,
		FlowControlSettings: pubsub.FlowControlSettings{
			MaxOutstandingMessages: 1000,
			MaxOutstandingBytes:    64 << 20,
			LimitExceededBehavior:  pubsub.FlowControlBlock,
		},
	}
}

// Publisher publishes shard messages to one topic. Safe for concurrent use.
type Publisher struct {
	p *pubsub.Publisher
}

var _ queue.Publisher = (*Publisher)(nil)

// New returns a Publisher for topic (an id, or projects/P/topics/T) of
// client. Call Stop when done to flush and release it; the client is not
// owned.
func New(client *pubsub.Client, topic string) *Publisher {
	p := client.Publisher(topic)
	p.PublishSettings = DefaultSettings()
	return &Publisher{p: p}
}

// Stop flushes outstanding messages and stops the publisher.
func (p *Publisher) Stop() { p.p.Stop() }

// Publish sends msg and waits until Pub/Sub has accepted it. Not idempotent:
// publishing twice delivers twice (consumers are idempotent through the
// ledger). Failures to reach Pub/Sub wrap derrors.ErrTransient; an invalid
// message wraps derrors.ErrPermanent.
func (p *Publisher) Publish(ctx context.Context, msg queue.ShardMessage) (err error) {
	defer derrors.Wrap(&err, "pubsubq.Publish(%s, %d)", msg.RunID, msg.Shard)
	m, err := Encode(msg)
	if err != nil {
		return err
	}
	_, err = p.p.Publish(ctx, m).Get(ctx)
	return translate(err)
}

// PublishAll publishes every message, letting the client batch them, and
// waits for all; it returns the first error with the failing shard named
// (messages before it may already be published). Same retry semantics as
// Publish.
func (p *Publisher) PublishAll(ctx context.Context, msgs []queue.ShardMessage) (err error) {
	defer derrors.Wrap(&err, "pubsubq.PublishAll(%d messages)", len(msgs))
	results := make([]*pubsub.PublishResult, len(msgs))
	for i, msg := range msgs {
		m, err := Encode(msg)
		if err != nil {
			return fmt.Errorf("shard %d: %w", msg.Shard, err)
		}
		results[i] = p.p.Publish(ctx, m)
	}
	for i, r := range results {
		if _, err := r.Get(ctx); err != nil {
			return fmt.Errorf("shard %d: %w", msgs[i].Shard, translate(err))
		}
	}
	return nil
}

// Encode returns the Pub/Sub message for msg after validating it.
func Encode(msg queue.ShardMessage) (*pubsub.Message, error) {
	if err := Validate(msg); err != nil {
		return nil, err
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return nil, derrors.Permanent(err)
	}
	return &pubsub.Message{Data: data, Attributes: map[string]string{
		AttrRun:   msg.RunID,
		AttrShard: strconv.Itoa(msg.Shard),
	}}, nil
}

// Decode parses and validates a shard message body and its attributes.
// Unknown JSON fields, a body over MaxMessageBytes, missing fields and
// attributes that disagree with the body are errors wrapping
// derrors.ErrPermanent (redelivery cannot fix them). Attributes may be
// absent (nil), as when a message is published by hand without them.
func Decode(data []byte, attrs map[string]string) (queue.ShardMessage, error) {
	var msg queue.ShardMessage
	if len(data) > MaxMessageBytes {
		return msg, derrors.Permanent(fmt.Errorf("message body of %d bytes exceeds %d", len(data), MaxMessageBytes))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&msg); err != nil {
		return msg, derrors.Permanent(fmt.Errorf("decoding shard message: %w", err))
	}
	if dec.More() {
		return msg, derrors.Permanent(errors.New("decoding shard message: trailing data after the JSON object"))
	}
	if err := Validate(msg); err != nil {
		return msg, err
	}
	if r, ok := attrs[AttrRun]; ok && r != msg.RunID {
		return msg, derrors.Permanent(fmt.Errorf("attribute run=%q disagrees with body run_id %q", r, msg.RunID))
	}
	if s, ok := attrs[AttrShard]; ok && s != strconv.Itoa(msg.Shard) {
		return msg, derrors.Permanent(fmt.Errorf("attribute shard=%q disagrees with body shard %d", s, msg.Shard))
	}
	return msg, nil
}

// Validate checks a shard message (queue.ShardMessage.Validate, and a
// bound on Total). It does not check URI schemes or buckets: the receiver
// does that against its configuration. Errors wrap derrors.ErrPermanent.
func Validate(msg queue.ShardMessage) error {
	if err := msg.Validate(); err != nil {
		return derrors.Permanent(err)
	}
	if msg.Total > 1_000_000 {
		return derrors.Permanent(fmt.Errorf("shard message: total %d out of range", msg.Total))
	}
	return nil
}

func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return derrors.Transient(err)
	}
	switch status.Code(err) {
	case codes.NotFound, codes.PermissionDenied, codes.InvalidArgument:
		return derrors.Permanent(err)
	}
	return derrors.Transient(err)
}
