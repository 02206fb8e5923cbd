package infra

import (
	"testing"
	"time"
)

// TestShardDeliveryOutlastsBackpressure: Pub/Sub counts every non-2xx push
// answer as a delivery attempt (DeadLetterPolicy.max_delivery_attempts: "1 +
// the number of NACKs"; a push that is not answered 2xx is a NACK),
// including the 429s Cloud Run gives while all max_instance_count
// instances are busy. A healthy shard message at the back of a large run's
// queue is refused until the instances reach it, one refusal per retry
// backoff (exponential from minimum_backoff, capped at maximum_backoff). The
// time those attempts span must therefore outlast the queue of the largest
// run users start (afdb-24M: 12,005 shards) at shard_max_instances, with a
// 60 s shard (the typical AFDB shard of 2,000 rows), by a wide margin (6x:
// slow shards, Cloud Run's scale-up, best-effort backoff). The emulator test
// TestBackpressure shows the same thing end to end at its own time scale.
func TestShardDeliveryOutlastsBackpressure(t *testing.T) {
	const (
		largestRun = 12005
		shardTime  = 60 * time.Second
		margin     = 6
	)
	m := loadTF(t)
	s := m.resources("google_pubsub_subscription")["shards"]
	if s == nil {
		t.Fatal("no google_pubsub_subscription.shards")
	}
	attempts := intOf(t, m.eval(t, sub(s, "dead_letter_policy").Attributes["max_delivery_attempts"].Expr))
	rp := sub(s, "retry_policy")
	lo := durationOf(t, m.eval(t, rp.Attributes["minimum_backoff"].Expr))
	hi := durationOf(t, m.eval(t, rp.Attributes["maximum_backoff"].Expr))
	instances := intOf(t, m.eval(t, m.varDefault(t, "shard_max_instances")))
	var span time.Duration
	for k, b := 0, lo; k < attempts-1; k++ { // attempts-1 waits between attempts
		span += b
		b = min(2*b, hi)
	}
	drain := time.Duration((largestRun+instances-1)/instances) * shardTime
	if span < margin*drain {
		t.Errorf("shard subscription: %d attempts with backoff %s..%s span %s of refusals; a %d-shard run queues %s at %d instances: want >= %dx that (%s)",
			attempts, lo, hi, span.Round(time.Minute), largestRun, drain, instances, margin, margin*drain)
	}
	t.Logf("%d attempts span %s; the largest run queues %s at %d instances", attempts, span.Round(time.Minute), drain, instances)
}
