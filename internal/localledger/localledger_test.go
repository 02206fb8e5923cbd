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

// TestRelease: a transient failure puts the shard back to pending with its
// cause as LastError, which survives the next claim, completion and replay;
// a stale claim (another worker took over) releases nothing.
func TestRelease(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateRun(ctx, ledger.Run{ID: "r1", Shards: 2}); err != nil {
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
	check := func(step string, want ledger.Status, attempts int, lastErr string) {
		t.Helper()
		shards, _ := l.Shards(ctx, "r1")
		got := shards[0]
		if got.Status != want || got.Attempts != attempts || got.LastError != lastErr || got.Error != "" || !got.Lease.IsZero() {
			t.Errorf("%s: shard = %+v, want %s, attempts %d, last error %q, no error, no lease", step, got, want, attempts, lastErr)
		}
	}
	check("released", ledger.Pending, 1, "gcs: 503 backend error")
	if err := l.Release(ctx, s); err != nil { // repeated: no change
		t.Fatal(err)
	}
	check("released twice", ledger.Pending, 1, "gcs: 503 backend error")
	s2, err := l.Claim(ctx, "r1", 0, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx, s); err != nil { // the first claim is stale now
		t.Fatal(err)
	}
	if shards, _ := l.Shards(ctx, "r1"); shards[0].Status != ledger.Running {
		t.Errorf("a stale claim released the shard: %+v", shards[0])
	}
	if err := l.Complete(ctx, s2); err != nil {
		t.Fatal(err)
	}
	check("done", ledger.Done, 2, "gcs: 503 backend error")
	if err := l.Release(ctx, s2); err != nil {
		t.Fatal(err)
	}
	check("release of a done shard", ledger.Done, 2, "gcs: 503 backend error")
	if err := l.Release(ctx, ledger.Shard{RunID: "r1", Index: 9}); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("Release of an unknown shard = %v, want ErrNotFound", err)
	}
	l.Close()
	_, snap, err := Snapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap["r1"][0]; got.Status != ledger.Done || got.LastError != "gcs: 503 backend error" {
		t.Errorf("after replay shard = %+v", got)
	}
}

// TestBadRows: a failed shard's bad rows are kept (bounded) through a
// replay, and a new claim clears them.
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
	l2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if s, err := l2.Claim(ctx, "r1", 0, time.Hour); err != nil || len(s.BadRows) != 0 || s.BadRowsMore != 0 || s.Error != "" {
		t.Errorf("Claim of a failed shard = %+v, %v; want its failure cleared", s, err)
	}
}
