package tpujob

import (
	"context"
	"errors"

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
// subscription's max attempts).
func (j *Job) Receive(ctx context.Context, sub *pubsub.Subscriber, maxInFlight int) error {
	if maxInFlight <= 0 {
		maxInFlight = 16
	}
	sub.ReceiveSettings.MaxOutstandingMessages = maxInFlight
	sub.ReceiveSettings.NumGoroutines = 1
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		req, err := DecodeRequest(m.Data)
		if err == nil {
			err = j.Handle(ctx, req)
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
