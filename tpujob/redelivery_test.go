package tpujob

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/ledger/ledgertest"
)

// gateRunner holds every batch until open is closed, counting them.
type gateRunner struct {
	Runner
	open    chan struct{}
	mu      sync.Mutex
	batches int
}

func (g *gateRunner) RunBatch(device int, b b2t.Batch, inputs []*b2t.Input) ([][]int32, error) {
	<-g.open
	g.mu.Lock()
	g.batches++
	g.mu.Unlock()
	return g.Runner.RunBatch(device, b, inputs)
}

// TestDuplicateDeliveryWaits: a second delivery of a shard the job is
// still handling (Pub/Sub's at-least-once delivery, an ack deadline passed
// under load) waits for the first call and then finds the shard done: both
// return nil (both messages acked), one claim, one encoding. Without the
// wait it failed its claim against the job's own lease ("claimed by
// another worker") and was redelivered at once, again and again.
func TestDuplicateDeliveryWaits(t *testing.T) {
	f := newFixture(t, 1, [][]int{{12, 30}})
	g := &gateRunner{Runner: f.enc, open: make(chan struct{})}
	job, err := New(Config{Devices: 1, Ladder: testLadder, FlushAfter: 5 * time.Millisecond}, g, f.store, f.ledger)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	ctx := context.Background()
	first := make(chan error, 1)
	go func() { first <- job.Handle(ctx, f.reqs[0]) }()
	for {
		s, err := f.ledger.Shards(ctx, "run1")
		if err != nil {
			t.Fatal(err)
		}
		if s[0].Status == ledger.Running {
			break
		}
		time.Sleep(time.Millisecond)
	}
	second := make(chan error, 1)
	go func() { second <- job.Handle(ctx, f.reqs[0]) }()
	select {
	case err := <-second:
		t.Fatalf("the duplicate returned while the first delivery was in flight: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(g.open)
	if err := <-first; err != nil {
		t.Fatalf("first delivery: %v", err)
	}
	g.mu.Lock()
	once := g.batches // one encoding's batches
	g.mu.Unlock()
	if err := <-second; err != nil {
		t.Fatalf("duplicate delivery: %v", err)
	}
	s, err := f.ledger.Shards(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if s[0].Status != ledger.Done || s[0].Attempts != 1 || g.batches != once {
		t.Errorf("after a duplicate delivery: ledger %+v, %d batches; want done, 1 attempt, %d batches (one encoding)", s[0], g.batches, once)
	}
	f.checkOutputs(t)

	// A duplicate whose context ends while it waits fails transiently.
	leave, err := job.enter(ctx, shardKey{"run1", 0})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if err := job.Handle(cctx, f.reqs[0]); !errors.Is(err, derrors.ErrTransient) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("duplicate whose context ended while waiting: %v, want transient deadline exceeded", err)
	}
	leave()
}

// TestCompleteFailureReleases: the output is written but the ledger does
// not record it: the shard goes back to pending with the cause (so the
// redelivery need not wait out the 15-minute lease), the call fails
// transiently (nacked), and the redelivery verifies the output and
// completes the shard.
func TestCompleteFailureReleases(t *testing.T) {
	f := newFixture(t, 1, [][]int{{12, 30}})
	fl := &ledgertest.FailingComplete{Ledger: f.ledger}
	fl.Fails.Store(1)
	job, err := New(Config{Devices: 1, Ladder: testLadder, FlushAfter: 5 * time.Millisecond}, f.enc, f.store, fl)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	ctx := context.Background()
	if err := job.Handle(ctx, f.reqs[0]); !errors.Is(err, derrors.ErrTransient) {
		t.Fatalf("Handle with a failing Complete: %v, want transient", err)
	}
	s, err := f.ledger.Shards(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if s[0].Status != ledger.Pending || !strings.Contains(s[0].LastError, ledgertest.ErrCommit.Error()) {
		t.Errorf("after a failed Complete: %+v, want pending with the cause as last error", s[0])
	}
	if err := job.Handle(ctx, f.reqs[0]); err != nil {
		t.Fatalf("redelivery: %v", err)
	}
	if s, _ = f.ledger.Shards(ctx, "run1"); s[0].Status != ledger.Done || s[0].Attempts != 2 {
		t.Errorf("after the redelivery: %+v, want done after 2 attempts", s[0])
	}
	f.checkOutputs(t)
}
