package shardfn_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/faultblob"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/ledger/ledgertest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localqueue"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/version"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// fakeFormat writes "doc <entry> <block name>"; a block named "short" is
// filtered as too_short, one named "bad" fails generation.
type fakeFormat struct{}

func (fakeFormat) Name() string                   { return "fake" }
func (fakeFormat) Kind() format.InputKind         { return format.FromStructure }
func (fakeFormat) RecordColumns() []format.Column { return nil }
func (fakeFormat) Columns() []format.Column {
	return []format.Column{{Name: "seq_len", Type: format.Int64}, {Name: "global_plddt", Type: format.Float64}}
}
func (fakeFormat) Generate(in format.Input) (format.Result, error) {
	switch in.Structure.Name {
	case "short":
		return format.Result{Filtered: "too_short", Values: []any{int64(1), 0.0}}, nil
	case "bad":
		return format.Result{}, errors.New("expected single polymer chain, found 2")
	}
	return format.Result{Document: "doc " + in.EntryID + " " + in.Structure.Name, Values: []any{int64(len(in.Structure.Name)), 50.5}}, nil
}

func newFake(name string, opts map[string]string) (format.Format, error) { return fakeFormat{}, nil }

// fakeParse reads "data_NAME" into st; anything else is a parse error.
func fakeParse(st *structure.Structure, data []byte) error {
	name, ok := strings.CutPrefix(string(data), "data_")
	if !ok {
		return fmt.Errorf("line 1: expected data_ block")
	}
	*st = structure.Structure{Name: name}
	return nil
}

type row struct{ id, content string } // content "" = object missing

// setup writes the objects and a manifest (row groups of 4) and plans one
// shard over it; it returns the message and the deps.
func setup(t *testing.T, rows []row, lenient bool, store func(localblob.Store) *faultblob.Store) (queue0 planner.Result, deps shardfn.Deps, dir string) {
	t.Helper()
	dir = t.TempDir()
	var mrows [][]any
	for i, r := range rows {
		uri := "file://" + filepath.Join(dir, "cif", r.id+".cif")
		if r.content != "" {
			if err := os.MkdirAll(filepath.Join(dir, "cif"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "cif", r.id+".cif"), []byte(r.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mrows = append(mrows, []any{r.id, uri, "train", int64(i)})
	}
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String},
		{Name: "split", Type: format.String}, {Name: "seq_len", Type: format.Int64}}
	data, err := manifest.Encode(cols, mrows, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := (localblob.Store{}).Create(context.Background(), filepath.Join(dir, "m", "m.parquet"), data); err != nil {
		t.Fatal(err)
	}
	led, err := localledger.Open(filepath.Join(dir, "out", localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	st := store(localblob.Store{})
	q := localqueue.New()
	p, err := planner.Plan(context.Background(), planner.Deps{Store: st, Ledger: led, Publisher: q, NewFormat: newFake},
		planner.Spec{Manifest: filepath.Join(dir, "m", "*.parquet"), Format: "fake", Output: filepath.Join(dir, "out"), LenientMissing: lenient})
	if err != nil {
		t.Fatal(err)
	}
	return *p, shardfn.Deps{Store: st, Ledger: led, Parse: fakeParse, NewFormat: newFake, FetchConcurrency: 4}, dir
}

func plain(s localblob.Store) *faultblob.Store { return faultblob.New(s, 0) }

func TestProcess(t *testing.T) {
	good := []row{{"A", "data_alpha"}, {"B", "data_short"}, {"C", "data_gamma"}, {"D", "data_delta"}, {"E", "data_eps"}}
	for _, tc := range []struct {
		name      string
		rows      []row
		lenient   bool
		wantErr   string // substring; "" = success
		wantEntry string
		wantDocs  []string
		wantAcc   corpus.Accounting
	}{
		{name: "all rows", rows: good,
			wantDocs: []string{"doc A alpha", "doc C gamma", "doc D delta", "doc E eps"},
			wantAcc:  corpus.Accounting{RowsIn: 5, DocsOut: 4, Filtered: map[string]int64{"too_short": 1}}},
		{name: "parse error fails the shard with the entry id", rows: append(good[:2:2], row{"X", "garbage"}, row{"Y", "data_y"}),
			wantErr: "parse", wantEntry: "X"},
		{name: "generate error", rows: []row{{"A", "data_a"}, {"Z", "data_bad"}}, wantErr: "single polymer chain", wantEntry: "Z"},
		{name: "missing object fails by default", rows: []row{{"A", "data_a"}, {"M", ""}}, wantErr: "not found", wantEntry: "M"},
		{name: "missing object skipped when lenient", rows: []row{{"A", "data_a"}, {"M", ""}, {"B", "data_b"}}, lenient: true,
			wantDocs: []string{"doc A a", "doc B b"},
			wantAcc:  corpus.Accounting{RowsIn: 3, DocsOut: 2, Skipped: 1, SkippedIDs: []string{"M"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, deps, _ := setup(t, tc.rows, tc.lenient, plain)
			ctx := context.Background()
			res, err := shardfn.Process(ctx, deps, p.Messages[0])
			shards, _ := deps.Ledger.Shards(ctx, p.Run.ID)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, derrors.ErrPermanent) {
					t.Fatalf("Process = %v, want a permanent error containing %q", err, tc.wantErr)
				}
				if s := shards[0]; s.Status != ledger.Failed || s.EntryID != tc.wantEntry || !strings.Contains(s.Error, tc.wantErr) {
					t.Errorf("ledger shard = %+v, want failed at entry %s", s, tc.wantEntry)
				}
				if _, err := os.Stat(p.Messages[0].Output); err == nil {
					t.Errorf("failed shard left an output file")
				}
				return
			}
			if err != nil {
				t.Fatalf("Process: %v", err)
			}
			a := res.Accounting
			if a.RowsIn != tc.wantAcc.RowsIn || a.DocsOut != tc.wantAcc.DocsOut || a.Skipped != tc.wantAcc.Skipped ||
				fmt.Sprint(a.Filtered) != fmt.Sprint(tc.wantAcc.Filtered) || fmt.Sprint(a.SkippedIDs) != fmt.Sprint(tc.wantAcc.SkippedIDs) || !a.Balanced() {
				t.Errorf("accounting = %+v, want %+v", a, tc.wantAcc)
			}
			if s := shards[0]; s.Status != ledger.Done || s.Counts.RowsIn != a.RowsIn || s.SHA256 == "" {
				t.Errorf("ledger shard = %+v, want done with counts", s)
			}
			var docs []string
			meta, err := corpus.ReadMeta(ctx, deps.Store, p.Messages[0].Output)
			if err != nil {
				t.Fatal(err)
			}
			if meta.Accounting.RowsIn != a.RowsIn || meta.NumRows != a.DocsOut {
				t.Errorf("file metadata %+v rows %d, want accounting %+v", meta.Accounting, meta.NumRows, a)
			}
			wantCols := "[entry_id structure document sha1 seq_len global_plddt split]"
			if fmt.Sprint(meta.Columns) != wantCols {
				t.Errorf("columns = %v, want %s", meta.Columns, wantCols)
			}
			err = corpus.Read(ctx, deps.Store, p.Messages[0].Output, []string{"document", "split", "seq_len"}, func(r *manifest.Rows) error {
				for _, v := range r.Values {
					docs = append(docs, v[0].(string))
					if v[1] != "train" {
						t.Errorf("passthrough split = %v", v[1])
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(docs) != fmt.Sprint(tc.wantDocs) {
				t.Errorf("documents = %q, want %q (input order)", docs, tc.wantDocs)
			}
		})
	}
}

func TestProcessRetryAndDone(t *testing.T) {
	rows := []row{{"A", "data_a"}, {"B", "data_b"}}
	p, deps, _ := setup(t, rows, false, plain)
	ctx := context.Background()
	msg := p.Messages[0]
	first, err := shardfn.Process(ctx, deps, msg)
	if err != nil {
		t.Fatal(err)
	}
	// A duplicate delivery of a done shard is a no-op.
	again, err := shardfn.Process(ctx, deps, msg)
	if err != nil || !again.AlreadyDone {
		t.Fatalf("second Process = %+v, %v; want AlreadyDone", again, err)
	}
	// A retry that finds the object (e.g. a crash between the write and
	// Complete) verifies it: replay with a fresh ledger.
	led2, err := localledger.Open(filepath.Join(t.TempDir(), localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer led2.Close()
	if err := led2.CreateRun(ctx, p.Run); err != nil {
		t.Fatal(err)
	}
	deps2 := deps
	deps2.Ledger = led2
	res, err := shardfn.Process(ctx, deps2, msg)
	if err != nil || !res.Verified {
		t.Fatalf("Process over an existing identical output = %+v, %v; want Verified", res, err)
	}
	if res.Shard.SHA256 != first.Shard.SHA256 {
		t.Errorf("sha256 differs between identical runs: %s vs %s", res.Shard.SHA256, first.Shard.SHA256)
	}
	// ... keeps the same shard written by another foldcorpus build (the
	// version in its accounting differs; same length, so the footer stays
	// readable) ...
	out, err := os.ReadFile(msg.Output)
	if err != nil {
		t.Fatal(err)
	}
	mine := fmt.Sprintf(`"foldcorpus_version":%q`, version.String())
	theirs := fmt.Sprintf(`"foldcorpus_version":%q`, strings.Repeat("x", len(version.String())))
	if !bytes.Contains(out, []byte(mine)) {
		t.Fatalf("output has no %s in its accounting", mine)
	}
	out = bytes.Replace(out, []byte(mine), []byte(theirs), 1)
	if err := os.Remove(msg.Output); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(msg.Output, out, 0o644); err != nil {
		t.Fatal(err)
	}
	led3, err := localledger.Open(filepath.Join(t.TempDir(), localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer led3.Close()
	if err := led3.CreateRun(ctx, p.Run); err != nil {
		t.Fatal(err)
	}
	deps2.Ledger = led3
	res, err = shardfn.Process(ctx, deps2, msg)
	if sum := sha256.Sum256(out); err != nil || !res.Verified || res.Shard.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("Process over the same shard by another build = %+v, %v; want Verified with the stored file's sha256 %x", res, err, sum)
	}
	// ... and refuses a different one.
	p3, deps3, _ := setup(t, rows, false, plain)
	if err := os.WriteFile(p3.Messages[0].Output, []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := shardfn.Process(ctx, deps3, p3.Messages[0]); err == nil || !strings.Contains(err.Error(), "different content") {
		t.Fatalf("Process over a different output = %v, want 'different content'", err)
	}
}

func TestProcessTransient(t *testing.T) {
	rows := []row{{"A", "data_a"}, {"B", "data_b"}}
	p, deps, _ := setup(t, rows, false, func(s localblob.Store) *faultblob.Store {
		f := faultblob.New(s, 0)
		f.Transient = "B.cif"
		return f
	})
	_, err := shardfn.Process(context.Background(), deps, p.Messages[0])
	if !errors.Is(err, derrors.ErrTransient) || errors.Is(err, derrors.ErrPermanent) {
		t.Fatalf("Process = %v, want a transient error", err)
	}
	// Released, not failed: status must not list a shard that a redelivery
	// will retry; the cause is kept as its last error.
	shards, _ := deps.Ledger.Shards(context.Background(), p.Run.ID)
	if s := shards[0]; s.Status != ledger.Pending || s.Error != "" || !strings.Contains(s.LastError, "B.cif") || s.Attempts != 1 || !s.Lease.IsZero() {
		t.Errorf("ledger shard after a transient failure = %+v, want pending, attempts 1, no lease, last error naming B.cif", s)
	}
	// The shard can be claimed again at once (redelivery), not only after
	// the lease would have expired.
	if s, err := deps.Ledger.Claim(context.Background(), p.Run.ID, 0, time.Minute); err != nil || s.Attempts != 2 {
		t.Fatalf("reclaim after transient failure = %+v, %v; want attempt 2", s, err)
	}
}

// TestProcessCompleteFailureReleases: the output is written but the ledger
// does not record it: the shard goes back to pending with the cause, so the
// redelivery need not wait out the lease; the redelivery verifies the
// output and completes the shard.
func TestProcessCompleteFailureReleases(t *testing.T) {
	p, deps, _ := setup(t, []row{{"A", "data_a"}, {"B", "data_b"}}, false, plain)
	led := deps.Ledger
	fl := &ledgertest.FailingComplete{Ledger: led}
	fl.Fails.Store(1)
	deps.Ledger = fl
	ctx := context.Background()
	if _, err := shardfn.Process(ctx, deps, p.Messages[0]); !errors.Is(err, derrors.ErrTransient) {
		t.Fatalf("Process with a failing Complete = %v, want a transient error", err)
	}
	shards, _ := led.Shards(ctx, p.Run.ID)
	if s := shards[0]; s.Status != ledger.Pending || !strings.Contains(s.LastError, ledgertest.ErrCommit.Error()) || !s.Lease.IsZero() {
		t.Errorf("ledger shard after a failed Complete = %+v, want pending, no lease, the cause as last error", s)
	}
	res, err := shardfn.Process(ctx, deps, p.Messages[0])
	if err != nil || !res.Verified {
		t.Fatalf("redelivery = %+v, %v; want done with the output verified", res, err)
	}
	if shards, _ = led.Shards(ctx, p.Run.ID); shards[0].Status != ledger.Done || shards[0].Attempts != 2 {
		t.Errorf("after the redelivery: %+v, want done after 2 attempts", shards[0])
	}
}

// invalidComplete is a ledger whose first Complete fails with an error
// that is not marked transient, as Firestore answers a commit of an expired
// transaction (INVALID_ARGUMENT), without reaching the ledger.
type invalidComplete struct {
	ledger.Ledger
	failed bool
}

func (l *invalidComplete) Complete(ctx context.Context, s ledger.Shard) error {
	if !l.failed {
		l.failed = true
		return errors.New("rpc error: code = InvalidArgument desc = Transaction is invalid or closed.")
	}
	return l.Ledger.Complete(ctx, s)
}

// TestProcessCompleteFailureIsTransient: whatever Complete answers, the
// output is durable and the shard released, so Process returns a transient
// error (the message is redelivered and the redelivery completes the
// shard); a permanent one would have the function acknowledge the message
// and leave the shard pending with nothing to finish it.
func TestProcessCompleteFailureIsTransient(t *testing.T) {
	p, deps, _ := setup(t, []row{{"A", "data_a"}}, false, plain)
	led := deps.Ledger
	deps.Ledger = &invalidComplete{Ledger: led}
	ctx := context.Background()
	if _, err := shardfn.Process(ctx, deps, p.Messages[0]); !errors.Is(err, derrors.ErrTransient) {
		t.Fatalf("Process with Complete answering INVALID_ARGUMENT = %v, want a transient error", err)
	}
	if shards, _ := led.Shards(ctx, p.Run.ID); shards[0].Status != ledger.Pending {
		t.Errorf("ledger shard after the failed Complete = %+v, want pending", shards[0])
	}
	if res, err := shardfn.Process(ctx, deps, p.Messages[0]); err != nil || !res.Verified {
		t.Fatalf("redelivery = %+v, %v; want done with the output verified", res, err)
	}
}

func TestFetchPoolOverlapsAndKeepsOrder(t *testing.T) {
	var rows []row
	for i := 0; i < 40; i++ {
		rows = append(rows, row{fmt.Sprintf("R%02d", i), fmt.Sprintf("data_n%02d", i)})
	}
	var fs *faultblob.Store
	p, deps, _ := setup(t, rows, false, func(s localblob.Store) *faultblob.Store {
		fs = faultblob.New(s, 20*time.Millisecond)
		return fs
	})
	deps.FetchConcurrency = 8
	var order []string
	res, err := shardfn.Process(context.Background(), deps, p.Messages[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := fs.MaxInFlight.Load(); got != 8 {
		t.Errorf("max fetches in flight = %d, want 8 (the bound, reached)", got)
	}
	err = corpus.Read(context.Background(), deps.Store, p.Messages[0].Output, []string{"entry_id"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			order = append(order, v[0].(string))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range order {
		if id != rows[i].id {
			t.Fatalf("row %d is %s, want %s: input order lost", i, id, rows[i].id)
		}
	}
	if res.Timing.Rows != 40 || res.Timing.Fetch < 40*20*time.Millisecond {
		t.Errorf("timing = %+v, want 40 rows and >= 800ms of summed fetch time", res.Timing)
	}
}

func TestProcessCancelledIsTransient(t *testing.T) {
	var rows []row
	for i := 0; i < 20; i++ {
		rows = append(rows, row{fmt.Sprintf("R%02d", i), "data_x"})
	}
	p, deps, _ := setup(t, rows, false, func(s localblob.Store) *faultblob.Store { return faultblob.New(s, 50*time.Millisecond) })
	deps.FetchConcurrency = 2
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := shardfn.Process(ctx, deps, p.Messages[0])
	if !errors.Is(err, derrors.ErrTransient) {
		t.Fatalf("Process under a cancelled context = %v, want a transient error", err)
	}
	shards, _ := deps.Ledger.Shards(context.Background(), p.Run.ID)
	if shards[0].Status == ledger.Failed {
		t.Errorf("an interrupted shard was recorded as failed: %+v", shards[0])
	}
	if _, err := os.Stat(p.Messages[0].Output); err == nil {
		t.Errorf("an interrupted shard left an output")
	}
}

// TestProcessPinnedGenerationLocal: a message pinning a manifest generation
// cannot be served by local files (no generations): a permanent failure
// that says why, never a read of the live file.
func TestProcessPinnedGenerationLocal(t *testing.T) {
	p, deps, _ := setup(t, []row{{"A", "data_a"}}, false, plain)
	msg := p.Messages[0]
	msg.ManifestGeneration = 1700000000000001
	_, err := shardfn.Process(context.Background(), deps, msg)
	if !errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), "generation 1700000000000001") {
		t.Fatalf("Process = %v, want a permanent error naming the generation", err)
	}
	shards, _ := deps.Ledger.Shards(context.Background(), p.Run.ID)
	if s := shards[0]; s.Status != ledger.Failed || !strings.Contains(s.Error, "no object generations") {
		t.Errorf("ledger shard = %+v, want failed with the cause", s)
	}
	if _, err := os.Stat(msg.Output); err == nil {
		t.Errorf("a shard that could not read its manifest generation wrote an output")
	}
}
