package firestoreledger

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

func TestMain(m *testing.M) { os.Exit(emulators.RunMain(m, emulators.Firestore)) }

var projects atomic.Int32

// newLedger returns a ledger in a fresh emulator project and a settable clock.
func newLedger(t *testing.T) (*Ledger, *time.Time) {
	t.Helper()
	ctx := context.Background()
	project := fmt.Sprintf("test-%s-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), projects.Add(1))
	c, err := firestore.NewClient(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return New(c, Options{Now: func() time.Time { return now }}), &now
}

const runID = "gs://manifests/run/m.parquet#1700000000123"

// The contract of ledger.Ledger (runs, the shard state machine under
// retries and concurrent claims, bad rows) is tested by the conformance
// suite (conformance_test.go); these are Firestore's own behaviours.

// TestProgressManyShards: Progress counts the shards by status with
// aggregation queries, over more shards than one BulkWriter batch.
func TestProgressManyShards(t *testing.T) {
	l, _ := newLedger(t)
	ctx := context.Background()
	const n = 250
	if err := l.CreateRun(ctx, ledger.Run{ID: runID, Shards: n}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 10 {
		if err := l.Complete(ctx, ledger.Shard{RunID: runID, Index: i}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Claim(ctx, runID, 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := l.Fail(ctx, ledger.Shard{RunID: runID, Index: 2, Error: "parse"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Fail(ctx, ledger.Shard{RunID: runID, Index: 3, Status: ledger.DeadLettered}); err != nil {
		t.Fatal(err)
	}
	p, err := l.Progress(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[ledger.Status]int64{ledger.Done: n / 10, ledger.Running: 1, ledger.Failed: 1, ledger.DeadLettered: 1, ledger.Pending: n - n/10 - 3}
	if !maps.Equal(p, want) {
		t.Errorf("Progress = %v, want %v", p, want)
	}
	shards, err := l.Shards(ctx, runID)
	if err != nil || len(shards) != n || shards[n-1].Index != n-1 {
		t.Errorf("Shards = %d records, %v", len(shards), err)
	}
}
