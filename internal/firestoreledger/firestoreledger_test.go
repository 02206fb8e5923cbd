package firestoreledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
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

func TestCreateRunIdempotent(t *testing.T) {
	l, _ := newLedger(t)
	ctx := context.Background()
	run := ledger.Run{ID: runID, Manifest: "gs://manifests/run/m.parquet", Format: "contacts-and-distances-v2", Output: "gs://out/p", Shards: 3, Options: map[string]string{"fetch_concurrency": "32"}}
	if err := l.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Claim(ctx, runID, 1, time.Minute); err != nil {
		t.Fatal(err)
	}
	run.Format = "changed"
	if err := l.CreateRun(ctx, run); err != nil {
		t.Fatalf("second CreateRun = %v, want nil", err)
	}
	got, err := l.GetRun(ctx, runID)
	if err != nil || got.Format != "contacts-and-distances-v2" || got.Shards != 3 || got.Options["fetch_concurrency"] != "32" {
		t.Errorf("GetRun = %+v, %v; want the first run kept", got, err)
	}
	shards, err := l.Shards(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	var st []string
	for i, s := range shards {
		if s.Index != i || s.RunID != runID {
			t.Errorf("shard %d = %+v", i, s)
		}
		st = append(st, string(s.Status))
	}
	if want := "pending running pending"; strings.Join(st, " ") != want {
		t.Errorf("statuses after a second CreateRun = %q, want %q", strings.Join(st, " "), want)
	}
	if _, err := l.GetRun(ctx, "gs://manifests/other#1"); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("GetRun(missing) = %v, want ErrNotFound", err)
	}
	if _, err := l.Claim(ctx, runID, 7, time.Minute); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("Claim(missing shard) = %v, want ErrNotFound", err)
	}
}

func TestShardLifecycle(t *testing.T) {
	l, now := newLedger(t)
	ctx := context.Background()
	if err := l.CreateRun(ctx, ledger.Run{ID: runID, Shards: 2}); err != nil {
		t.Fatal(err)
	}
	counts := ledger.Counts{RowsIn: 20, DocsOut: 18, Filtered: map[string]int64{"multi_chain": 2}}
	steps := []struct {
		name         string
		do           func() error
		wantErr      error
		wantStatus   ledger.Status
		wantAttempts int
	}{
		{"claim", func() error { _, err := l.Claim(ctx, runID, 0, time.Minute); return err }, nil, ledger.Running, 1},
		{"claim under a live lease", func() error { _, err := l.Claim(ctx, runID, 0, time.Minute); return err }, derrors.ErrTransient, ledger.Running, 1},
		{"claim after the lease expired", func() error {
			*now = now.Add(2 * time.Minute)
			_, err := l.Claim(ctx, runID, 0, time.Minute)
			return err
		}, nil, ledger.Running, 2},
		{"release a stale claim (no change)", func() error {
			return l.Release(ctx, ledger.Shard{RunID: runID, Index: 0, Attempts: 1, Error: "stale"})
		}, nil, ledger.Running, 2},
		{"release (transient failure)", func() error {
			return l.Release(ctx, ledger.Shard{RunID: runID, Index: 0, Attempts: 2, Error: "gcs: 503"})
		}, nil, ledger.Pending, 2},
		{"claim a released shard (redelivery)", func() error { _, err := l.Claim(ctx, runID, 0, time.Minute); return err }, nil, ledger.Running, 3},
		{"fail (poison row)", func() error {
			return l.Fail(ctx, ledger.Shard{RunID: runID, Index: 0, EntryID: "AF-X", Error: "parse: truncated"})
		}, nil, ledger.Failed, 3},
		{"release a failed shard (no change)", func() error {
			return l.Release(ctx, ledger.Shard{RunID: runID, Index: 0, Attempts: 3})
		}, nil, ledger.Failed, 3},
		{"claim a failed shard (rerun)", func() error { _, err := l.Claim(ctx, runID, 0, time.Minute); return err }, nil, ledger.Running, 4},
		{"complete", func() error {
			return l.Complete(ctx, ledger.Shard{RunID: runID, Index: 0, Counts: counts, Output: "gs://out/p-00000-of-00002.parquet", SHA256: "ab"})
		}, nil, ledger.Done, 4},
		{"complete again (kept first)", func() error {
			return l.Complete(ctx, ledger.Shard{RunID: runID, Index: 0, Counts: ledger.Counts{RowsIn: 1}})
		}, nil, ledger.Done, 4},
		{"claim a done shard", func() error { _, err := l.Claim(ctx, runID, 0, time.Minute); return err }, derrors.ErrAlreadyDone, ledger.Done, 4},
		{"dead-letter a done shard", func() error {
			return l.Fail(ctx, ledger.Shard{RunID: runID, Index: 0, Status: ledger.DeadLettered})
		}, derrors.ErrAlreadyDone, ledger.Done, 4},
	}
	for _, st := range steps {
		err := st.do()
		if (st.wantErr == nil && err != nil) || !errors.Is(err, st.wantErr) {
			t.Fatalf("%s: err = %v, want %v", st.name, err, st.wantErr)
		}
		shards, err := l.Shards(ctx, runID)
		if err != nil {
			t.Fatal(err)
		}
		if s := shards[0]; s.Status != st.wantStatus || s.Attempts != st.wantAttempts {
			t.Fatalf("%s: shard = %s attempts %d, want %s attempts %d", st.name, s.Status, s.Attempts, st.wantStatus, st.wantAttempts)
		}
	}
	shards, _ := l.Shards(ctx, runID)
	if s := shards[0]; s.Counts.RowsIn != 20 || s.Counts.DocsOut != 18 || s.Counts.Filtered["multi_chain"] != 2 || s.SHA256 != "ab" || s.Output == "" || s.EntryID != "" || s.LastError != "gcs: 503" {
		t.Errorf("done shard = %+v", s)
	}

	if err := l.Fail(ctx, ledger.Shard{RunID: runID, Index: 1, Status: ledger.DeadLettered, Error: "max delivery attempts"}); err != nil {
		t.Fatal(err)
	}
	p, err := l.Progress(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if p[ledger.Done] != 1 || p[ledger.DeadLettered] != 1 || p[ledger.Pending] != 0 || p[ledger.Running] != 0 || p[ledger.Failed] != 0 {
		t.Errorf("Progress = %v, want done 1, dead_lettered 1", p)
	}
}

// TestConcurrentClaims: exactly one of several simultaneous claimers wins.
func TestConcurrentClaims(t *testing.T) {
	l, _ := newLedger(t)
	ctx := context.Background()
	if err := l.CreateRun(ctx, ledger.Run{ID: runID, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	const n = 3
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = l.Claim(ctx, runID, 0, time.Hour)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, derrors.ErrTransient):
			t.Errorf("losing claim = %v, want ErrTransient", err)
		}
	}
	shards, _ := l.Shards(ctx, runID)
	if won != 1 || shards[0].Attempts != 1 {
		t.Errorf("%d claims won, attempts %d; want exactly 1 and 1", won, shards[0].Attempts)
	}
}

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
	p, err := l.Progress(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if p[ledger.Done] != n/10 || p[ledger.Pending] != n-n/10 {
		t.Errorf("Progress = %v, want done %d pending %d", p, n/10, n-n/10)
	}
	shards, err := l.Shards(ctx, runID)
	if err != nil || len(shards) != n || shards[n-1].Index != n-1 {
		t.Errorf("Shards = %d records, %v", len(shards), err)
	}
}

// TestBadRows: a failed shard's bad rows round-trip through Firestore
// (bounded), and a new claim clears them.
func TestBadRows(t *testing.T) {
	l, _ := newLedger(t)
	ctx := context.Background()
	if err := l.CreateRun(ctx, ledger.Run{ID: runID, Shards: 1}); err != nil {
		t.Fatal(err)
	}
	s, err := l.Claim(ctx, runID, 0, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s.EntryID, s.Error = "E0", "bad rows"
	for i := range ledger.MaxBadRows + 2 {
		s.BadRows = append(s.BadRows, ledger.BadRow{EntryID: fmt.Sprintf("E%d", i), Row: int64(i), Stage: "fetch", Error: "not found"})
	}
	if err := l.Fail(ctx, s); err != nil {
		t.Fatal(err)
	}
	shards, err := l.Shards(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	got := shards[0]
	if got.Status != ledger.Failed || len(got.BadRows) != ledger.MaxBadRows || got.BadRowsMore != 2 {
		t.Fatalf("failed shard %s: %d bad rows + %d more; want failed, %d + 2", got.Status, len(got.BadRows), got.BadRowsMore, ledger.MaxBadRows)
	}
	if want := (ledger.BadRow{EntryID: "E7", Row: 7, Stage: "fetch", Error: "not found"}); got.BadRows[7] != want {
		t.Errorf("bad row 7 = %+v, want %+v", got.BadRows[7], want)
	}
	if s, err := l.Claim(ctx, runID, 0, time.Minute); err != nil || len(s.BadRows) != 0 || s.BadRowsMore != 0 {
		t.Errorf("Claim of a failed shard = %+v, %v; want its bad rows cleared", s, err)
	}
	shards, _ = l.Shards(ctx, runID)
	if len(shards[0].BadRows) != 0 {
		t.Errorf("stored shard after a claim still has %d bad rows", len(shards[0].BadRows))
	}
}
