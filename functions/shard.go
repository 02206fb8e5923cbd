package functions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/pubsubq"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// ShardFn handles one shard message (a messagePublished CloudEvent).
//
// Retry: a transient failure (storage 429/5xx, a ledger conflict, a live
// lease held by another delivery, the deadline) returns an error, so Pub/Sub
// redelivers; after the subscription's maximum delivery attempts the message
// goes to the dead-letter topic (see DeadLetter). A permanent failure (a row
// that cannot be fetched, parsed or generated; an invalid message) records
// the shard as failed with the entry id and cause and acknowledges the
// message. A duplicate delivery of a done shard is a no-op.
func (s *Server) ShardFn(ctx context.Context, e event.Event) error {
	ctx = eventContext(ctx, e)
	log := s.deps.Log.With("function", "ShardFn", "event_id", e.ID())
	m, err := decodePubSub(e)
	if err != nil {
		log.ErrorContext(ctx, "invalid event; acknowledged", "error", err.Error())
		return nil
	}
	if s.tooOld(ctx, log, e, m.PublishTime) {
		return nil
	}
	msg, err := s.decodeShard(m)
	if err != nil {
		log = log.With("run", m.Attributes[pubsubq.AttrRun], "shard", m.Attributes[pubsubq.AttrShard])
		log.ErrorContext(ctx, "invalid shard message; acknowledged", "error", err.Error())
		s.failFromAttributes(ctx, log, m.Attributes, err)
		return nil
	}
	log = log.With("run", msg.RunID, "shard", msg.Shard)
	res, err := s.process(ctx, log, msg)
	switch {
	case err == nil && res.AlreadyDone:
		log.InfoContext(ctx, "shard already done; duplicate delivery acknowledged")
		return nil
	case err == nil && res.Staged != "":
		a := res.Accounting
		log.InfoContext(ctx, "shard staged for the tokenize job", "rows_in", a.RowsIn, "filtered", a.Filtered,
			"skipped", a.Skipped, "staged", res.Staged, "attempt", res.Shard.Attempts, "wall_ms", res.Timing.Wall.Milliseconds())
		return nil
	case err == nil:
		a := res.Accounting
		log.InfoContext(ctx, "shard done", "rows_in", a.RowsIn, "docs_out", a.DocsOut, "filtered", a.Filtered,
			"skipped", a.Skipped, "output", msg.Output, "bytes", res.Bytes, "verified_existing", res.Verified,
			"attempt", res.Shard.Attempts, "wall_ms", res.Timing.Wall.Milliseconds())
		return nil
	case isTransient(ctx, err):
		log.WarnContext(ctx, "shard failed transiently; will be redelivered", "error", err.Error())
		return err
	}
	// Process recorded the failure (ledger.Record), with or without a
	// claim: once is enough.
	entry, _, _ := shardfn.BadRowsOf(err)
	log.ErrorContext(ctx, "shard failed permanently; acknowledged", "entry_id", entry, "error", err.Error())
	return nil
}

// LeaseWait is how long one delivery of a shard waits, inside its request,
// for another delivery's live claim on the same shard (see Server.process).
// It is well under the shard function's timeout (480 s by default), so a
// delivery that takes the shard over after the wait still has most of its
// time left.
const LeaseWait = 2 * time.Minute

// process runs the shard. When the claim itself fails transiently (another
// delivery holds a live lease: a duplicate delivery, or the redelivery of a
// crashed attempt whose lease has not expired; or the ledger was busy),
// answering at once would count as a delivery attempt against the
// subscription's dead-letter limit and come back within seconds to meet the
// same lease. Instead the delivery waits here, retrying the claim with
// backoff (1 s doubling to 15 s, or until the holder's lease ends if that
// is sooner) for up to s.leaseWait: it acknowledges as soon as the holder
// finishes the shard, takes the shard over once the lease expires, and only
// when the wait runs out returns the transient
// error (one delivery attempt spent per LeaseWait, not per retry).
func (s *Server) process(ctx context.Context, log *slog.Logger, msg queue.ShardMessage) (shardfn.Result, error) {
	deps := shardfn.Deps{
		Store: s.deps.Store, Ledger: s.deps.Ledger, Parse: mmcif.ReadInto,
		FetchConcurrency: s.cfg.FetchConcurrency, Lease: s.cfg.Lease, Handoff: s.handoff(),
		NewFormat: s.deps.NewFormat,
		// decodeShard validated msg (pubsubq.Decode): once is enough
		Validate: shardfn.Prevalidated,
	}
	give := time.Now().Add(s.leaseWait)
	delay := time.Second
	for waited := 0; ; waited++ {
		res, err := shardfn.Process(ctx, deps, msg)
		// res.Shard is set once this delivery holds the claim: any failure
		// after that is the shard's own, answered as usual.
		claimFailed := err != nil && res.Shard.RunID == "" && errors.Is(err, derrors.ErrTransient)
		wait := delay
		var held *ledger.LeaseHeldError
		if errors.As(err, &held) {
			// Wake when the holder's lease ends, not up to a backoff later.
			wait = max(min(wait, time.Until(held.Until)+leaseSlack), leaseSlack)
		}
		if !claimFailed || ctx.Err() != nil || time.Now().Add(wait).After(give) {
			if waited > 0 {
				log.InfoContext(ctx, "waited for another delivery's claim", "retries", waited, "error", errText(err))
			}
			return res, err
		}
		log.DebugContext(ctx, "shard claimed by another delivery; waiting in the request", "retry_in", wait.String(), "error", err.Error())
		select {
		case <-ctx.Done():
			return res, err
		case <-time.After(wait):
		}
		delay = min(2*delay, 15*time.Second)
	}
}

// leaseSlack is how long after another delivery's lease ends a waiting
// delivery tries to claim the shard again (clocks differ a little).
const leaseSlack = 200 * time.Millisecond

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// decodeShard decodes and validates a shard message, and checks that its
// manifest is in an input bucket and its output under the output prefix.
func (s *Server) decodeShard(m pubsubMessage) (queue.ShardMessage, error) {
	msg, err := pubsubq.Decode(m.Data, m.Attributes)
	if err != nil {
		return msg, err
	}
	if _, _, err := gcs.ParseURI(msg.Manifest, s.cfg.InputBuckets); err != nil {
		return msg, err
	}
	if err := s.checkOutput(msg.Output); err != nil {
		return msg, derrors.Permanent(err)
	}
	return msg, nil
}

// failFromAttributes records an undecodable message as a shard failure when
// its attributes name a run and shard the ledger knows.
func (s *Server) failFromAttributes(ctx context.Context, log *slog.Logger, attrs map[string]string, cause error) {
	run := attrs[pubsubq.AttrRun]
	shard, err := strconv.Atoi(attrs[pubsubq.AttrShard])
	if run == "" || err != nil {
		return
	}
	if _, err := s.deps.Ledger.GetRun(ctx, run); err != nil {
		return
	}
	if err := ledger.Record(ctx, s.deps.Ledger, ledger.Shard{RunID: run, Index: shard}, derrors.Permanent(fmt.Errorf("invalid message: %w", cause))); errors.Is(err, derrors.ErrTransient) {
		log.WarnContext(ctx, "could not record the invalid message in the ledger", "error", err.Error())
	}
}

// Dead-letter attributes the Pub/Sub service adds.
const (
	AttrDeadLetterCount = "CloudPubSubDeadLetterSourceDeliveryCount"
	AttrDeadLetterSub   = "CloudPubSubDeadLetterSourceSubscription"
)

// DeadLetter handles a message of the dead-letter topic: the shard it names
// is marked dead-lettered (keeping the last recorded error: the permanent
// one, else the last transient one) unless it is done. Always acknowledges,
// except when the ledger cannot be written (transient: redelivered).
func (s *Server) DeadLetter(ctx context.Context, e event.Event) error {
	ctx = eventContext(ctx, e)
	log := s.deps.Log.With("function", "DeadLetter", "event_id", e.ID())
	m, err := decodePubSub(e)
	if err != nil {
		log.ErrorContext(ctx, "invalid event; acknowledged", "error", err.Error())
		return nil
	}
	msg, err := pubsubq.Decode(m.Data, m.Attributes)
	if err != nil {
		// The tokenize subscription (the accelerator job's) dead-letters
		// tokenize requests; they name their shard too.
		if req, rerr := tokenize.DecodeRequest(m.Data); rerr == nil {
			msg, err = queue.ShardMessage{RunID: req.RunID, Shard: req.Shard}, nil
		}
	}
	if err != nil {
		log.ErrorContext(ctx, "invalid dead-lettered message; acknowledged", "error", err.Error(), "run", m.Attributes[pubsubq.AttrRun], "shard", m.Attributes[pubsubq.AttrShard])
		return nil
	}
	log = log.With("run", msg.RunID, "shard", msg.Shard)
	cause := fmt.Sprintf("dead-lettered after %s delivery attempts", orUnknown(m.Attributes[AttrDeadLetterCount]))
	if sub := m.Attributes[AttrDeadLetterSub]; sub != "" {
		cause += " on " + sub
	}
	rec := ledger.Shard{RunID: msg.RunID, Index: msg.Shard, Status: ledger.DeadLettered}
	text := cause
	switch shards, err := s.deps.Ledger.Shards(ctx, msg.RunID); {
	case err == nil && msg.Shard < len(shards) && shards[msg.Shard].Status == ledger.Done:
		log.InfoContext(ctx, "dead-lettered message for a done shard; nothing to do")
		return nil
	case err == nil && msg.Shard < len(shards):
		// A shard that failed permanently has its cause in Error; one that
		// failed transiently on every attempt was released back to pending
		// with the cause in LastError.
		switch last := shards[msg.Shard]; {
		case last.Error != "":
			text = cause + "; last error: " + last.Error
			rec.EntryID = last.EntryID
			rec.BadRows, rec.BadRowsMore = last.BadRows, last.BadRowsMore
		case last.LastError != "":
			text = cause + "; last error: " + last.LastError
		}
	case err == nil || errors.Is(err, derrors.ErrNotFound):
		log.ErrorContext(ctx, "dead-lettered message for an unknown run or shard; acknowledged")
		return nil
	}
	if err := ledger.Record(ctx, s.deps.Ledger, rec, derrors.Permanent(errors.New(text))); errors.Is(err, derrors.ErrTransient) {
		log.ErrorContext(ctx, "recording the dead letter failed; will be redelivered", "error", err.Error())
		return err
	}
	log.ErrorContext(ctx, "shard dead-lettered", "error", text, "entry_id", rec.EntryID)
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown number of"
	}
	return s
}
