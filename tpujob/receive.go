package tpujob

import (
	"context"
	"errors"
	"time"

	"cloud.google.com/go/pubsub/v2"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Receive pulls tokenize requests from sub until ctx is done, handling up
// to maxInFlight shards at once (their rows share the device batches, which
// is what fills them). A message is acked only after its shard's output is
// durable and marked done (or was done before), and after a permanent
// failure that the ledger recorded (redelivery cannot heal it; a malformed
// message is acked for the same reason). Any other failure nacks it, so
// Pub/Sub redelivers it with backoff (and dead-letters it after the
// subscription's max attempts). When ctx ends, the shards in flight are
// interrupted at once (see ReceiveDrain for a graceful stop).
func (j *Job) Receive(ctx context.Context, sub *pubsub.Subscriber, maxInFlight int) error {
	return j.ReceiveDrain(ctx, sub, maxInFlight, 0)
}

// ReceiveDrain is Receive with a graceful stop: when ctx ends it stops
// pulling, and the shards already in flight keep running for up to drain
// more (their batches finish, their outputs are written, their messages
// acked). A shard that is not durable by then is interrupted: released in
// the ledger and its message nacked, so another worker redoes it. It
// returns once every in-flight callback has returned.
func (j *Job) ReceiveDrain(ctx context.Context, sub *pubsub.Subscriber, maxInFlight int, drain time.Duration) error {
	if maxInFlight <= 0 {
		maxInFlight = 16
	}
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	stop := context.AfterFunc(ctx, func() {
		j.log.Info("stopping: no more pulls; finishing the shards in flight", "drain_seconds", drain.Seconds())
		time.AfterFunc(drain, cancelWork) // cancelWork is idempotent
	})
	defer stop()
	sub.ReceiveSettings.MaxOutstandingMessages = maxInFlight
	sub.ReceiveSettings.NumGoroutines = 1
	return sub.Receive(ctx, func(_ context.Context, m *pubsub.Message) {
		req, err := DecodeRequest(m.Data)
		if err == nil {
			err = j.Handle(work, req)
		}
		switch {
		case err == nil:
			m.Ack()
		case errors.Is(err, derrors.ErrPermanent):
			j.log.Error("tokenize request failed permanently", "run", req.RunID, "shard", req.Shard, "message", m.ID, "err", err)
			m.Ack()
		default:
			j.log.Warn("tokenize request failed, will be redelivered", "run", req.RunID, "shard", req.Shard, "message", m.ID, "err", err)
			m.Nack()
		}
	})
}
