// Package ledgertest is the conformance suite of ledger.Ledger: the run and
// shard records, the shard state machine (claim, lease, release, fail,
// complete, rerun) under retries and concurrent workers, and bad rows,
// run by every implementation from its own tests (as go-cloud's drivertest
// does for its drivers):
//
//	func TestConformance(t *testing.T) {
//		ledgertest.Run(t, func(t *testing.T, now func() time.Time) ledger.Ledger { ... })
//	}
//
// Implementation-specific behaviour (replay after a crash, the file lock,
// Firestore's aggregation queries) stays in the implementation's tests.
package ledgertest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// NewLedger returns a fresh, empty ledger whose clock is now. Each test of
// the suite calls it once.
type NewLedger func(t *testing.T, now func() time.Time) ledger.Ledger

// RunID is the run id the suite uses: a gs:// name with a generation, as
// the planner makes them ("/" and "#" included).
const RunID = "gs://manifests/run/m.parquet#1700000000123"

// clock is a settable clock, whole seconds (Firestore keeps microseconds).
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Run runs the whole suite over the implementation newLedger builds.
func Run(t *testing.T, newLedger NewLedger) {
	fresh := func(t *testing.T) (ledger.Ledger, *clock) {
		c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		return newLedger(t, c.now), c
	}
	t.Run("CreateRun", func(t *testing.T) { l, _ := fresh(t); testCreateRun(t, l) })
	t.Run("Lifecycle", func(t *testing.T) { l, c := fresh(t); testLifecycle(t, l, c) })
	t.Run("ConcurrentClaims", func(t *testing.T) { l, _ := fresh(t); testConcurrentClaims(t, l) })
	t.Run("RetriedCompletion", func(t *testing.T) { l, _ := fresh(t); testRetriedCompletion(t, l) })
	t.Run("DeadLetter", func(t *testing.T) { l, _ := fresh(t); testDeadLetter(t, l) })
	t.Run("BadRows", func(t *testing.T) { l, _ := fresh(t); testBadRows(t, l) })
}

func shard(t *testing.T, l ledger.Ledger, i int) ledger.Shard {
	t.Helper()
	shards, err := l.Shards(context.Background(), RunID)
	if err != nil {
		t.Fatalf("Shards = %v", err)
	}
	if i >= len(shards) {
		t.Fatalf("Shards = %d records, want more than %d", len(shards), i)
	}
	return shards[i]
}

// testCreateRun: CreateRun records the run and pending shards in index
// order; a second call (a redelivered trigger) keeps the first run and the
// shards' progress; unknown runs and shards are ErrNotFound.
func testCreateRun(t *testing.T, l ledger.Ledger) {
	ctx := context.Background()
	run := ledger.Run{ID: RunID, Manifest: "gs://manifests/run/m.parquet", Format: "contacts-and-distances-v2",
		Output: "gs://out/p", Shards: 12, Options: map[string]string{"fetch_concurrency": "32"}}
	if err := l.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, RunID, 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	changed := run
	changed.Format, changed.Shards = "changed", 3
	if err := l.CreateRun(ctx, changed); err != nil {
		t.Fatalf("second CreateRun = %v, want nil", err)
	}
	got, err := l.GetRun(ctx, RunID)
	if err != nil || got.ID != RunID || got.Manifest != run.Manifest || got.Format != run.Format || got.Output != run.Output ||
		got.Shards != run.Shards || got.Options["fetch_concurrency"] != "32" || got.Created.IsZero() {
		t.Errorf("GetRun = %+v, %v; want the first run kept, with a creation time", got, err)
	}
	shards, err := l.Shards(ctx, RunID)
	if err != nil || len(shards) != run.Shards {
		t.Fatalf("Shards = %d records, %v; want %d", len(shards), err, run.Shards)
	}
	for i, s := range shards {
		want := ledger.Pending
		if i == 1 {
			want = ledger.Running
		}
		if s.Index != i || s.RunID != RunID || s.Status != want {
			t.Errorf("shard %d = index %d run %q %s; want index %d, %s", i, s.Index, s.RunID, s.Status, i, want)
		}
	}
	if _, err := l.GetRun(ctx, "gs://manifests/other#1"); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("GetRun(unknown) = %v, want ErrNotFound", err)
	}
	if _, err := l.Claim(ctx, RunID, run.Shards, time.Minute); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("Claim(shard %d of %d) = %v, want ErrNotFound", run.Shards, run.Shards, err)
	}
	if err := l.Release(ctx, ledger.Shard{RunID: RunID, Index: 99, Attempts: 1}); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("Release(unknown shard) = %v, want ErrNotFound", err)
	}
	if shards, err := l.Shards(ctx, "gs://manifests/other#1"); err != nil || len(shards) != 0 {
		t.Errorf("Shards(unknown run) = %v, %v; want none", shards, err)
	}
}

// testLifecycle walks one shard through every transition a worker, a
// redelivery and a rerun make, checking the record after each.
func testLifecycle(t *testing.T, l ledger.Ledger, c *clock) {
	ctx := context.Background()
	if err := l.CreateRun(ctx, ledger.Run{ID: RunID, Shards: 2}); err != nil {
		t.Fatal(err)
	}
	counts := ledger.Counts{RowsIn: 20, DocsOut: 17, Filtered: map[string]int64{"multi_chain": 2}, Skipped: 1}
	var claimed ledger.Shard
	claim := func() error {
		s, err := l.Claim(ctx, RunID, 0, time.Minute)
		if err == nil {
			claimed = s
			if s.Status != ledger.Running || !s.Lease.Equal(c.now().Add(time.Minute)) || !s.Started.Equal(c.now()) || s.Error != "" {
				t.Errorf("Claim returned %+v; want running, lease now+1m, started now, no error", s)
			}
		}
		return err
	}
	steps := []struct {
		name         string
		do           func() error
		wantErr      error
		wantStatus   ledger.Status
		wantAttempts int
		wantLastErr  string
	}{
		{"claim", claim, nil, ledger.Running, 1, ""},
		{"claim under a live lease", claim, derrors.ErrTransient, ledger.Running, 1, ""},
		{"claim after the lease expired", func() error { c.advance(2 * time.Minute); return claim() }, nil, ledger.Running, 2, ""},
		{"release a stale claim (no change)", func() error {
			return l.Release(ctx, ledger.Shard{RunID: RunID, Index: 0, Attempts: 1, Error: "stale"})
		}, nil, ledger.Running, 2, ""},
		{"release (transient failure)", func() error {
			s := claimed
			s.Error = "gcs: 503"
			return l.Release(ctx, s)
		}, nil, ledger.Pending, 2, "gcs: 503"},
		{"release again (no change)", func() error {
			s := claimed
			s.Error = "again"
			return l.Release(ctx, s)
		}, nil, ledger.Pending, 2, "gcs: 503"},
		{"claim a released shard (redelivery)", claim, nil, ledger.Running, 3, "gcs: 503"},
		{"fail (poison row)", func() error {
			s := claimed
			s.EntryID, s.Error = "AF-X", "parse: truncated"
			return l.Fail(ctx, s)
		}, nil, ledger.Failed, 3, "gcs: 503"},
		{"release a failed shard (no change)", func() error { return l.Release(ctx, claimed) }, nil, ledger.Failed, 3, "gcs: 503"},
		{"claim a failed shard (rerun)", claim, nil, ledger.Running, 4, "gcs: 503"},
		{"complete", func() error {
			s := claimed
			s.Counts, s.Output, s.SHA256 = counts, "gs://out/p-00000-of-00002.parquet", "ab"
			return l.Complete(ctx, s)
		}, nil, ledger.Done, 4, "gcs: 503"},
		{"complete again (the first is kept)", func() error {
			return l.Complete(ctx, ledger.Shard{RunID: RunID, Index: 0, Counts: ledger.Counts{RowsIn: 1}, Output: "other"})
		}, nil, ledger.Done, 4, "gcs: 503"},
		{"claim a done shard", claim, derrors.ErrAlreadyDone, ledger.Done, 4, "gcs: 503"},
		{"fail a done shard", func() error {
			return l.Fail(ctx, ledger.Shard{RunID: RunID, Index: 0, Error: "late"})
		}, derrors.ErrAlreadyDone, ledger.Done, 4, "gcs: 503"},
		{"dead-letter a done shard", func() error {
			return l.Fail(ctx, ledger.Shard{RunID: RunID, Index: 0, Status: ledger.DeadLettered})
		}, derrors.ErrAlreadyDone, ledger.Done, 4, "gcs: 503"},
		{"release a done shard (no change)", func() error { return l.Release(ctx, claimed) }, nil, ledger.Done, 4, "gcs: 503"},
	}
	for _, st := range steps {
		err := st.do()
		if (st.wantErr == nil && err != nil) || !errors.Is(err, st.wantErr) {
			t.Fatalf("%s: err = %v, want %v", st.name, err, st.wantErr)
		}
		s := shard(t, l, 0)
		if s.Status != st.wantStatus || s.Attempts != st.wantAttempts || s.LastError != st.wantLastErr {
			t.Fatalf("%s: shard = %s, attempts %d, last error %q; want %s, %d, %q", st.name, s.Status, s.Attempts, s.LastError, st.wantStatus, st.wantAttempts, st.wantLastErr)
		}
		switch s.Status {
		case ledger.Pending, ledger.Done, ledger.Failed:
			if !s.Lease.IsZero() {
				t.Errorf("%s: %s shard keeps a lease %s", st.name, s.Status, s.Lease)
			}
		}
		if s.Status == ledger.Failed && (s.EntryID != "AF-X" || s.Error != "parse: truncated" || s.Finished.IsZero()) {
			t.Errorf("%s: failed shard = %+v; want its entry id, error and finish time", st.name, s)
		}
		if s.Status != ledger.Failed && (s.EntryID != "" || s.Error != "") {
			t.Errorf("%s: %s shard keeps the failure %q %q", st.name, s.Status, s.EntryID, s.Error)
		}
	}
	s := shard(t, l, 0)
	if s.Counts.RowsIn != 20 || s.Counts.DocsOut != 17 || s.Counts.Filtered["multi_chain"] != 2 || s.Counts.Skipped != 1 ||
		s.Output != "gs://out/p-00000-of-00002.parquet" || s.SHA256 != "ab" || !s.Started.Equal(c.now()) || !s.Finished.Equal(c.now()) {
		t.Errorf("done shard = %+v; want the first completion's counts, output and hash, started and finished now", s)
	}
	if other := shard(t, l, 1); other.Status != ledger.Pending || other.Attempts != 0 {
		t.Errorf("the other shard = %s, attempts %d; want untouched", other.Status, other.Attempts)
	}
}

// testConcurrentClaims: of workers claiming one shard at once (a message
// delivered twice), exactly one wins; the others get ErrTransient.
func testConcurrentClaims(t *testing.T, l ledger.Ledger) {
	ctx := context.Background()
	if err := l.CreateRun(ctx, ledger.Run{ID: RunID, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	const n = 3 // Firestore transactions under contention take seconds each
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = l.Claim(ctx, RunID, 0, time.Hour)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, derrors.ErrTransient):
			t.Errorf("losing Claim = %v, want ErrTransient", err)
		}
	}
	if s := shard(t, l, 0); won != 1 || s.Attempts != 1 || s.Status != ledger.Running {
		t.Errorf("%d claims won, shard %s attempts %d; want exactly 1, running, 1", won, s.Status, s.Attempts)
	}
}

// testRetriedCompletion: completions of many shards at once, each sent
// twice (a worker retrying after a lost response), all succeed and leave
// every shard done once with its counts.
func testRetriedCompletion(t *testing.T, l ledger.Ledger) {
	ctx := context.Background()
	const n = 6
	if err := l.CreateRun(ctx, ledger.Run{ID: RunID, Shards: n}); err != nil {
		t.Fatal(err)
	}
	claims := make([]ledger.Shard, n)
	for i := range n {
		s, err := l.Claim(ctx, RunID, i, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		claims[i] = s
	}
	var wg sync.WaitGroup
	for i := range n {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := claims[i]
				s.Counts = ledger.Counts{RowsIn: int64(i + 1), DocsOut: int64(i + 1)}
				s.Output = fmt.Sprintf("gs://out/p-%05d-of-%05d.parquet", i, n)
				if err := l.Complete(ctx, s); err != nil {
					t.Errorf("Complete(shard %d) = %v", i, err)
				}
			}()
		}
	}
	wg.Wait()
	shards, err := l.Shards(ctx, RunID)
	if err != nil || len(shards) != n {
		t.Fatalf("Shards = %d, %v", len(shards), err)
	}
	for i, s := range shards {
		if s.Status != ledger.Done || s.Attempts != 1 || s.Counts.RowsIn != int64(i+1) || s.Output != fmt.Sprintf("gs://out/p-%05d-of-%05d.parquet", i, n) {
			t.Errorf("shard %d = %s, attempts %d, rows %d, output %q; want done once with its counts", i, s.Status, s.Attempts, s.Counts.RowsIn, s.Output)
		}
	}
}

// testDeadLetter: the dead-letter handler fails a shard that may never have
// been claimed; it shows as dead-lettered with the cause, and a rerun can
// claim it again.
func testDeadLetter(t *testing.T, l ledger.Ledger) {
	ctx := context.Background()
	if err := l.CreateRun(ctx, ledger.Run{ID: RunID, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	if err := l.Fail(ctx, ledger.Shard{RunID: RunID, Index: 0, Status: ledger.DeadLettered, Error: "max delivery attempts"}); err != nil {
		t.Fatal(err)
	}
	if s := shard(t, l, 0); s.Status != ledger.DeadLettered || s.Error != "max delivery attempts" || s.Finished.IsZero() {
		t.Errorf("dead-lettered shard = %+v", s)
	}
	if s, err := l.Claim(ctx, RunID, 0, time.Minute); err != nil || s.Attempts != 1 || s.Error != "" {
		t.Errorf("Claim of a dead-lettered shard = %+v, %v; want a fresh claim, its failure cleared", s, err)
	}
}

// testBadRows: a failed shard keeps its first ledger.MaxBadRows bad rows and
// counts the rest; a new claim clears them.
func testBadRows(t *testing.T, l ledger.Ledger) {
	ctx := context.Background()
	if err := l.CreateRun(ctx, ledger.Run{ID: RunID, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	s, err := l.Claim(ctx, RunID, 0, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s.EntryID, s.Error = "E0", "bad rows"
	for i := range ledger.MaxBadRows + 3 {
		s.BadRows = append(s.BadRows, ledger.BadRow{EntryID: fmt.Sprintf("E%d", i), Row: int64(i), Stage: "fetch", Error: "not found"})
	}
	s.BadRowsMore = 4
	if err := l.Fail(ctx, s); err != nil {
		t.Fatal(err)
	}
	got := shard(t, l, 0)
	if got.Status != ledger.Failed || len(got.BadRows) != ledger.MaxBadRows || got.BadRowsMore != 7 {
		t.Fatalf("failed shard %s: %d bad rows + %d more; want failed, %d + 7", got.Status, len(got.BadRows), got.BadRowsMore, ledger.MaxBadRows)
	}
	if want := (ledger.BadRow{EntryID: "E7", Row: 7, Stage: "fetch", Error: "not found"}); got.BadRows[7] != want {
		t.Errorf("bad row 7 = %+v, want %+v", got.BadRows[7], want)
	}
	if s, err := l.Claim(ctx, RunID, 0, time.Minute); err != nil || len(s.BadRows) != 0 || s.BadRowsMore != 0 || s.Error != "" {
		t.Errorf("Claim of a failed shard = %+v, %v; want its bad rows cleared", s, err)
	}
	if got := shard(t, l, 0); len(got.BadRows) != 0 || got.BadRowsMore != 0 {
		t.Errorf("stored shard after a claim still has %d bad rows + %d", len(got.BadRows), got.BadRowsMore)
	}
}
