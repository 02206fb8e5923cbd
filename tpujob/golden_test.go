package tpujob

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/b2tgolden"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// goldenLadder puts several golden structures of different lengths into
// each bucket, so that batches hold rows of several lengths, padded.
var goldenLadder = []int{512, 1024, 2048, 4096, 8192}

// recordingRunner runs the job's batches on the full-size encoder and
// records each input's codes (by its coordinates). To keep the pure-Go
// CPU backend within test time it leaves out a batch's empty rows and
// runs at most maxRows rows at once: rows are independent in the graph
// (one DotGeneral algorithm, every op per row), so the used rows compute
// what they compute in the full-batch program.
type recordingRunner struct {
	enc     *b2t.Encoder
	maxRows int
	mu      sync.Mutex
	codes   map[[32]byte][]int32
	rows    []int // rows per device batch the job asked for
}

func (r *recordingRunner) Compile(b2t.Shape) error { return nil }
func (r *recordingRunner) Compiles() int           { return r.enc.Compiles() }
func (r *recordingRunner) NumDevices() int         { return r.enc.NumDevices() }

func (r *recordingRunner) RunBatch(device int, b b2t.Batch, inputs []*b2t.Input) ([][]int32, error) {
	r.mu.Lock()
	r.rows = append(r.rows, len(b.Items))
	r.mu.Unlock()
	var out [][]int32
	for lo := 0; lo < len(b.Items); lo += r.maxRows {
		items := b.Items[lo:min(len(b.Items), lo+r.maxRows)]
		codes, err := r.enc.RunBatch(device, b2t.Batch{Shape: b2t.Shape{Batch: len(items), Length: b.Shape.Length}, Items: items}, inputs)
		if err != nil {
			return nil, err
		}
		out = append(out, codes...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, idx := range b.Items {
		r.codes[coordsKey(inputs[idx])] = out[i]
	}
	return out, nil
}

func coordsKey(in *b2t.Input) [32]byte {
	raw := make([]byte, 4*len(in.Coords))
	for i, v := range in.Coords {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return sha256.Sum256(raw)
}

// TestGoldenThroughJob runs the golden files through the job as the cloud
// path does (adapted, staged as JSON, two shards in flight, batched by
// bucket, padded), on the CPU backend with the golden checkpoint: every
// atom with FSQ margin >= 1e-4 gets the reference's code, and every
// document in the shards' parquet equals the reference's, except for code
// tokens of near-tie atoms.
func TestGoldenThroughJob(t *testing.T) {
	files := b2tgolden.Load(t)
	w, err := b2t.LoadCheckpoint(b2tgolden.Checkpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	backend, err := b2t.NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := b2t.NewEncoder(backend, w)
	if err != nil {
		t.Fatal(err)
	}
	runner := &recordingRunner{enc: enc, maxRows: 4, codes: map[[32]byte][]int32{}}

	dir := t.TempDir()
	ctx := context.Background()
	l, err := localledger.Open(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const nShards = 2
	if err := l.CreateRun(ctx, ledger.Run{ID: "golden", Format: fb2t.Name, Shards: nShards, Output: dir}); err != nil {
		t.Fatal(err)
	}
	split := []format.Column{{Name: "split", Type: format.String, Nullable: true}}
	inputs := map[string]*b2t.Input{}
	byID := map[string]b2tgolden.File{} // by file path
	staged := make([]*Staged, nShards)
	for i, g := range files {
		s, err := mmcif.ReadFile(g.Path)
		if err != nil {
			t.Fatal(err)
		}
		in, err := b2t.Adapt(s)
		if err != nil {
			t.Fatal(err)
		}
		b2tgolden.CheckInput(t, g, in)
		id := g.Path // two golden files share an entry id: key by file
		inputs[id], byID[id] = in, g
		sh := i % nShards
		if staged[sh] == nil {
			staged[sh] = &Staged{Accounting: corpus.Accounting{Filtered: map[string]int64{}}, Passthrough: split}
		}
		staged[sh].Rows = append(staged[sh].Rows, StagedRow{EntryID: g.EntryID, Structure: g.Path, Passthrough: []any{"golden"}, Input: in})
		staged[sh].Accounting.RowsIn++
	}
	var store localblob.Store
	var reqs []Request
	for sh, st := range staged {
		uri := filepath.Join(dir, fmt.Sprintf("staged-%05d.json.gz", sh))
		if err := Stage(ctx, store, uri, st); err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, Request{RunID: "golden", Shard: sh, Total: nShards, Format: fb2t.Name, Staged: uri,
			Output: filepath.Join(dir, fmt.Sprintf("out-%05d-of-%05d.parquet", sh, nShards))})
	}
	job, err := New(Config{Devices: 1, Ladder: goldenLadder, FlushAfter: 200 * time.Millisecond}, runner, store, l)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	var wg sync.WaitGroup
	errs := make([]error, nShards)
	for i, req := range reqs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = job.Handle(ctx, req) }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	multi := 0
	for _, n := range runner.rows {
		if n > 1 {
			multi++
		}
	}
	t.Logf("%d device batches (structures each: %v), %d with more than one structure", len(runner.rows), runner.rows, multi)
	if multi == 0 {
		t.Error("no batch held more than one structure: the batched path was not exercised")
	}

	var tally b2tgolden.Tally
	for id, in := range inputs {
		codes, ok := runner.codes[coordsKey(in)]
		if !ok {
			t.Errorf("%s: the job encoded no input with these coordinates (staging changed them?)", id)
			continue
		}
		tally.Codes(t, "tpujob batched", byID[id], codes)
	}
	tally.Log(t, "tpujob batched")

	identical, docs := 0, 0
	for _, req := range reqs {
		err := corpus.Read(ctx, store, req.Output, []string{corpus.Structure, corpus.Document, "seq_length", "num_atoms", "num_atoms_total", "truncated", "num_tokens"},
			func(r *manifest.Rows) error {
				for _, v := range r.Values {
					id := v[0].(string)
					g, ok := byID[id]
					if !ok {
						return fmt.Errorf("unknown entry %s in %s", id, req.Output)
					}
					docs++
					doc := b2t.Document{Text: v[1].(string), SeqLength: int(v[2].(int64)), NumAtoms: int(v[3].(int64)),
						NumAtomsTotal: int(v[4].(int64)), Truncated: v[5].(bool), NumTokens: int(v[6].(int64))}
					if b2tgolden.CheckDocument(t, "tpujob parquet", g, inputs[id], doc) == 0 {
						identical++
					}
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	if docs != len(files) {
		t.Errorf("%d documents in the shards, want %d", docs, len(files))
	}
	t.Logf("tpujob parquet: %d documents, %d byte-identical to the reference, the rest differ only in near-tie code tokens", docs, identical)
}
