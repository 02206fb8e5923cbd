package localledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

func TestLifecycleAndReplay(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrLocked) {
		t.Errorf("second Open = %v, want ErrLocked", err)
	}
	run := ledger.Run{ID: "r1", Shards: 3}
	if err := l.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	s0, err := l.Claim(ctx, "r1", 0, time.Hour)
	if err != nil || s0.Attempts != 1 || s0.Status != ledger.Running {
		t.Fatalf("Claim = %+v, %v", s0, err)
	}
	if _, err := l.Claim(ctx, "r1", 0, time.Hour); !errors.Is(err, derrors.ErrTransient) {
		t.Errorf("Claim of a leased shard = %v, want ErrTransient", err)
	}
	s0.Counts = ledger.Counts{RowsIn: 5, DocsOut: 5}
	if err := l.Complete(ctx, s0); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, "r1", 0, time.Hour); !errors.Is(err, derrors.ErrAlreadyDone) {
		t.Errorf("Claim of a done shard = %v, want ErrAlreadyDone", err)
	}
	s1, _ := l.Claim(ctx, "r1", 1, time.Hour)
	s1.EntryID, s1.Error = "X", "parse: bad"
	if err := l.Fail(ctx, s1); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, "r1", 2, time.Hour); err != nil { // left running, as by a killed process
		t.Fatal(err)
	}
	if err := l.CreateRun(ctx, run); err != nil { // redelivered trigger: no reset
		t.Fatal(err)
	}
	l.Close()
	// A torn write at the end (kill -9 mid-append) is ignored.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"shard":{"run_id":"r1","index":0,"status":"pend`)
	f.Close()

	l2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	shards, _ := l2.Shards(ctx, "r1")
	want := []ledger.Status{ledger.Done, ledger.Failed, ledger.Running}
	for i, s := range shards {
		if s.Status != want[i] {
			t.Errorf("after replay shard %d is %s, want %s", i, s.Status, want[i])
		}
	}
	if shards[0].Counts.RowsIn != 5 || shards[1].EntryID != "X" {
		t.Errorf("replayed records lost data: %+v", shards)
	}
	// The dead process's claim has expired; the failed shard can be retried.
	for _, i := range []int{1, 2} {
		if s, err := l2.Claim(ctx, "r1", i, time.Hour); err != nil || s.Attempts != 2 {
			t.Errorf("reclaim shard %d = %+v, %v; want attempt 2", i, s, err)
		}
	}
	runs, snap, err := Snapshot(path)
	if err != nil || len(runs) != 1 || len(snap["r1"]) != 3 {
		t.Errorf("Snapshot = %v, %v, %v", runs, snap, err)
	}
}

// TestReleaseReplays: a released shard's last error survives the
// replay of the file (the suite checks Release itself).
func TestReleaseReplays(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateRun(ctx, ledger.Run{ID: "r1", Shards: 1}); err != nil {
		t.Fatal(err)
	}
	s, err := l.Claim(ctx, "r1", 0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s.Error = "gcs: 503 backend error"
	if err := l.Release(ctx, s); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, snap, err := Snapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap["r1"][0]; got.Status != ledger.Pending || got.Attempts != 1 || got.LastError != "gcs: 503 backend error" || !got.Lease.IsZero() {
		t.Errorf("after replay shard = %+v; want pending, attempt 1, its last error, no lease", got)
	}
}

// TestBadRows: a failed shard's bad rows are kept (bounded) through a
// replay.
func TestBadRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateRun(ctx, ledger.Run{ID: "r1", Shards: 1}); err != nil {
		t.Fatal(err)
	}
	s, err := l.Claim(ctx, "r1", 0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s.EntryID, s.Error = "E0", "2 bad rows"
	for i := range ledger.MaxBadRows + 3 {
		s.BadRows = append(s.BadRows, ledger.BadRow{EntryID: "E" + strconv.Itoa(i), Row: int64(i), Stage: "parse", Error: "line 1: bad"})
	}
	s.BadRowsMore = 4
	if err := l.Fail(ctx, s); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, snap, err := Snapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	got := snap["r1"][0]
	if len(got.BadRows) != ledger.MaxBadRows || got.BadRowsMore != 7 || got.BadRows[1] != (ledger.BadRow{EntryID: "E1", Row: 1, Stage: "parse", Error: "line 1: bad"}) {
		t.Errorf("replayed bad rows: %d + %d more, [1] = %+v; want %d + 7", len(got.BadRows), got.BadRowsMore, got.BadRows[1], ledger.MaxBadRows)
	}
}
