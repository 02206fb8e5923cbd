package tpujob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

var smallConfig = b2t.Config{DModel: 16, DInner: 32, DState: 4, DTRank: 2, DConv: 4, Layers: 2}

// testLadder keeps CPU batches small: 3 buckets.
var testLadder = []int{16, 32, 64}

func testEncoder(t *testing.T) *neural.Encoder {
	t.Helper()
	backend, err := neural.NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	w, err := b2t.RandomWeights(smallConfig, 4)
	if err != nil {
		t.Fatal(err)
	}
	e, err := neural.NewEncoder(backend, w)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// syntheticRow is an adapted structure of n atoms (4 per residue).
func syntheticRow(id string, n int, seed uint64) StagedRow {
	return stagedRow(id, n, synth.Backbone(rand.New(rand.NewPCG(seed, 3)), n, "GLY", 8))
}

// stagedRow stages in as bio2token-v2 encodes it (EncodeAdapted).
func stagedRow(id string, n int, in *b2t.Input) StagedRow {
	data, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	return StagedRow{EntryID: id, Structure: "gs://b/" + id + ".cif", Passthrough: []any{int64(n), "s"}, Input: data}
}

// input decodes a staged row's input as the job does.
func input(t *testing.T, r StagedRow) *b2t.Input {
	t.Helper()
	in, err := fb2t.DecodeAdapted(r.Input)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

var passthrough = []format.Column{{Name: "tax_id", Type: format.Int64, Nullable: true}, {Name: "split", Type: format.String, Nullable: true}}

type fixture struct {
	dir    string
	store  localblob.Store
	ledger *localledger.Ledger
	enc    *neural.Encoder
	reqs   []Request
	rows   [][]StagedRow
}

// newFixture stages nShards shards of mixed-length rows and records the run.
func newFixture(t *testing.T, nShards int, lengths [][]int) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), enc: testEncoder(t)}
	l, err := localledger.Open(filepath.Join(f.dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	f.ledger = l
	ctx := context.Background()
	if err := l.CreateRun(ctx, ledger.Run{ID: "run1", Format: "bio2token-v2", Shards: nShards, Output: f.dir}); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < nShards; s++ {
		var rows []StagedRow
		for i, n := range lengths[s] {
			rows = append(rows, syntheticRow(fmt.Sprintf("E%d-%d", s, i), n, uint64(100*s+i)))
		}
		st := &Staged{Accounting: corpus.Accounting{RowsIn: int64(len(rows) + 1), Filtered: map[string]int64{"parse_error": 1}}, Passthrough: passthrough, Rows: rows}
		uri := filepath.Join(f.dir, fmt.Sprintf("staged-%05d.json.gz", s))
		if err := Stage(ctx, f.store, uri, st); err != nil {
			t.Fatal(err)
		}
		f.rows = append(f.rows, rows)
		f.reqs = append(f.reqs, Request{RunID: "run1", Shard: s, Total: nShards, Format: "bio2token-v2", Staged: uri,
			Output: filepath.Join(f.dir, fmt.Sprintf("out-%05d-of-%05d.parquet", s, nShards))})
	}
	return f
}

// checkOutputs reads every shard's parquet and compares each document
// with the one assembled from the row's unpadded single-structure codes.
func (f *fixture) checkOutputs(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for s, req := range f.reqs {
		var got []string
		err := corpus.Read(ctx, f.store, req.Output, []string{corpus.EntryID, corpus.Document, "tax_id"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				got = append(got, v[1].(string))
				if v[2] == nil {
					return errors.New("passthrough tax_id lost")
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(f.rows[s]) {
			t.Fatalf("shard %d: %d documents, want %d", s, len(got), len(f.rows[s]))
		}
		for i, r := range f.rows[s] {
			in := input(t, r)
			codes, err := f.enc.Encode(in)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := b2t.Assemble(r.EntryID, in, codes)
			if err != nil {
				t.Fatal(err)
			}
			if got[i] != want.Text {
				t.Errorf("shard %d row %d: batched document differs from the unpadded single run", s, i)
			}
		}
		meta, err := corpus.ReadMeta(ctx, f.store, req.Output)
		if err != nil {
			t.Fatal(err)
		}
		if !meta.Accounting.Balanced() || meta.Accounting.DocsOut != int64(len(f.rows[s])) {
			t.Errorf("shard %d accounting %+v", s, meta.Accounting)
		}
	}
	shards, err := f.ledger.Shards(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shards {
		if sh.Status != ledger.Done || sh.SHA256 == "" {
			t.Errorf("shard %d: ledger %+v", sh.Index, sh)
		}
	}
}

// barrierRunner makes the first n batches wait until n run at once: the
// test passes only if n device workers really run concurrently.
type barrierRunner struct {
	Runner
	n       int
	mu      sync.Mutex
	arrived int
	release chan struct{}
	perDev  sync.Map // device -> *atomic.Int64
}

func (b *barrierRunner) RunBatch(device int, batch b2t.Batch, inputs []*b2t.Input) ([][]int32, error) {
	c, _ := b.perDev.LoadOrStore(device, new(atomic.Int64))
	c.(*atomic.Int64).Add(1)
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.release)
	}
	first := b.arrived <= b.n
	b.mu.Unlock()
	if first {
		select {
		case <-b.release:
		case <-time.After(20 * time.Second):
			return nil, errors.New("barrier: device workers did not run concurrently")
		}
	}
	return b.Runner.RunBatch(device, batch, inputs)
}

// TestCompileOncePerBucketAllDevices: a stream of mixed-length shards on 3
// simulated devices: every bucket compiled exactly once (at start-up,
// whatever the traffic), every device worker ran batches, concurrently,
// and every document equals the unpadded single-structure one.
func TestCompileOncePerBucketAllDevices(t *testing.T) {
	lengths := [][]int{{5, 16, 17, 40, 64, 3, 33}, {60, 8, 12, 31, 32, 50}, {1, 2, 63, 20, 45}, {64, 64, 7}}
	f := newFixture(t, len(lengths), lengths)
	br := &barrierRunner{Runner: f.enc, n: 3, release: make(chan struct{})}
	job, err := New(Config{Devices: 3, Ladder: testLadder, FlushAfter: 20 * time.Millisecond}, br, f.store, f.ledger)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	if got := f.enc.Compiles(); got != len(testLadder) {
		t.Fatalf("%d compiles at start-up, want %d (one per bucket)", got, len(testLadder))
	}
	var wg sync.WaitGroup
	errs := make([]error, len(f.reqs))
	for i, req := range f.reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = job.Handle(context.Background(), req)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	// A duplicate delivery of a done shard is a no-op.
	if err := job.Handle(context.Background(), f.reqs[0]); err != nil {
		t.Errorf("duplicate delivery: %v", err)
	}
	st := job.Stats()
	if st.Compiles != len(testLadder) {
		t.Errorf("%d compiles after traffic, want %d", st.Compiles, len(testLadder))
	}
	for d, n := range st.DeviceBatches {
		if n == 0 {
			t.Errorf("device %d ran no batch: %v", d, st.DeviceBatches)
		}
	}
	t.Logf("batches per device %v, atoms per device %v, padding efficiency %.3f", st.DeviceBatches, st.DeviceAtoms, st.PaddingEfficiency)
	f.checkOutputs(t)
}

func TestDecodeStagedRejects(t *testing.T) {
	good := &Staged{Passthrough: passthrough, Rows: []StagedRow{syntheticRow("a", 8, 1)}}
	bad := []func(s *Staged){
		func(s *Staged) { s.Rows[0].Passthrough = nil },
		func(s *Staged) { s.Rows[0].Passthrough[0] = "not a number" },
		func(s *Staged) { s.Rows[0].Input = nil },
	}
	data, err := EncodeStaged(good)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeStaged(data)
	if err != nil || back.Rows[0].Passthrough[0] != int64(8) {
		t.Fatalf("round trip: %v %v", back, err)
	}
	for i, mutate := range bad {
		s := &Staged{Passthrough: passthrough, Rows: []StagedRow{syntheticRow("a", 8, 1)}}
		mutate(s)
		data, err := EncodeStaged(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeStaged(data); err == nil {
			t.Errorf("case %d: malformed staged object accepted", i)
		}
	}
	// The staged input is bio2token-v2's to check (its Model.Decode).
	m, err := lookup(fb2t.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Decode(good.Rows[0].Input); err != nil {
		t.Errorf("good input rejected: %v", err)
	}
	for i, mutate := range []func(in *b2t.Input){
		func(in *b2t.Input) { in.Coords = in.Coords[:3] },
		func(in *b2t.Input) { in.AtomRes[0] = 99 },
		func(in *b2t.Input) { in.AtomNames = nil },
	} {
		r := syntheticRow("a", 8, 1)
		in := input(t, r)
		mutate(in)
		if _, err := m.Decode(stagedRow("a", 8, in).Input); err == nil {
			t.Errorf("input case %d: malformed input accepted", i)
		}
	}
	if _, err := DecodeRequest([]byte(`{"run_id":"r","shard":3,"total":2,"format":"bio2token-v2","staged":"a","output":"b"}`)); err == nil {
		t.Error("request with shard >= total accepted")
	}
}
