package functions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestShardFnLeaseConflict: a delivery that meets another delivery's live
// claim waits inside the request instead of answering an error at once
// (which Pub/Sub would count as a delivery attempt): it acknowledges when
// the holder finishes, takes over when the lease expires, and returns a
// transient error only when its wait runs out.
func TestShardFnLeaseConflict(t *testing.T) {
	files := testcorpus.Files(t, "afdb")[:1]
	for _, tc := range []struct {
		name      string
		lease     time.Duration // the other delivery's claim
		wait      time.Duration // this delivery's LeaseWait
		holder    func(ctx context.Context, fx *fixture, s ledger.Shard)
		wantErr   bool
		wantState ledger.Status
		attempts  int
		takeover  time.Duration // when set: the shard is claimed again within this
	}{
		{name: "holder finishes while we wait", lease: time.Minute, wait: 20 * time.Second,
			holder: func(ctx context.Context, fx *fixture, s ledger.Shard) {
				time.Sleep(1500 * time.Millisecond)
				s.Counts = ledger.Counts{RowsIn: 1, DocsOut: 1}
				s.Output = "gs://out/corpus/x.parquet"
				if err := fx.led.Complete(ctx, s); err != nil {
					t.Error(err)
				}
			},
			wantState: ledger.Done, attempts: 1},
		// The wait wakes when the lease ends (2 s), not at the backoff's
		// next retry (1 s + 2 s).
		{name: "holder's lease expires: taken over", lease: 2 * time.Second, wait: 20 * time.Second,
			wantState: ledger.Done, attempts: 2, takeover: 2700 * time.Millisecond},
		{name: "wait runs out", lease: time.Minute, wait: 2 * time.Second,
			wantErr: true, wantState: ledger.Running, attempts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t)
			ctx := context.Background()
			fx.upload(t, "runs/l.parquet", files)
			if err := fx.s.Planner(ctx, finalized("manifests", "runs/l.parquet", 1700000000000001, fx.now)); err != nil {
				t.Fatal(err)
			}
			msg := fx.pub.msgs[0]
			held, err := fx.led.Claim(ctx, msg.RunID, msg.Shard, tc.lease) // the other delivery
			if err != nil {
				t.Fatal(err)
			}
			fx.s.leaseWait = tc.wait
			done := make(chan struct{})
			go func() {
				defer close(done)
				if tc.holder != nil {
					tc.holder(ctx, fx, held)
				}
			}()
			start := time.Now()
			err = fx.s.ShardFn(ctx, published(t, msg, fx.now))
			<-done
			if tc.wantErr != (err != nil) || (err != nil && !errors.Is(err, derrors.ErrTransient)) {
				t.Fatalf("ShardFn = %v after %s, want error: %v (transient)", err, time.Since(start).Round(time.Millisecond), tc.wantErr)
			}
			shards, _ := fx.led.Shards(ctx, msg.RunID)
			if s := shards[0]; s.Status != tc.wantState || s.Attempts != tc.attempts {
				t.Errorf("shard = %s after %d attempts, want %s after %d", s.Status, s.Attempts, tc.wantState, tc.attempts)
			}
			if at := shards[0].Started.Sub(held.Started); tc.takeover > 0 && at > tc.takeover {
				t.Errorf("shard taken over %s after the other claim (lease %s), want within %s", at.Round(time.Millisecond), tc.lease, tc.takeover)
			}
			if !strings.Contains(fx.logs.String(), "shard claimed by another delivery; waiting in the request") {
				t.Errorf("no wait logged:\n%s", fx.logs.String())
			}
		})
	}
}
