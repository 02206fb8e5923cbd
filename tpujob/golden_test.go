package tpujob

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/b2tgolden"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// goldenLadder puts several golden structures of different lengths into
// each bucket, so that batches hold rows of several lengths, padded.
var goldenLadder = []int{512, 1024, 2048, 4096, 8192}

// TestGoldenThroughJob runs the golden files through the job as the cloud
// path does (adapted, staged as JSON, two shards in flight, batched by
// bucket, padded), on the CPU backend with the golden checkpoint: every
// atom with FSQ margin >= 1e-4 gets the reference's code, and every
// document in the shards' parquet equals the reference's, except for code
// tokens of near-tie atoms.
func TestGoldenThroughJob(t *testing.T) {
	files := b2tgolden.Load(t)
	enc, err := neural.Open(b2tgolden.Checkpoint(t), "go")
	if err != nil {
		t.Fatal(err)
	}
	runner := &b2tgolden.Runner{Enc: enc, MaxRows: 4}

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
		in := b2tgolden.Input(t, g)
		id := g.Path // two golden files share an entry id: key by file
		inputs[id], byID[id] = in, g
		sh := i % nShards
		if staged[sh] == nil {
			staged[sh] = &Staged{Accounting: corpus.Accounting{Filtered: map[string]int64{}}, Passthrough: split}
		}
		data, err := new(fb2t.Format).EncodeAdapted(in) // the shard function's staged encoding
		if err != nil {
			t.Fatal(err)
		}
		staged[sh].Rows = append(staged[sh].Rows, StagedRow{EntryID: g.EntryID, Structure: g.Path, Passthrough: []any{"golden"}, Input: data})
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
	multi, batches := 0, runner.Batches()
	for _, n := range batches {
		if n > 1 {
			multi++
		}
	}
	t.Logf("%d device batches (structures each: %v), %d with more than one structure", len(batches), batches, multi)
	if multi == 0 {
		t.Error("no batch held more than one structure: the batched path was not exercised")
	}

	var tally b2tgolden.Tally
	for id, in := range inputs {
		codes, ok := runner.Codes(in)
		if !ok {
			t.Errorf("%s: the job encoded no input with these coordinates (staging changed them?)", id)
			continue
		}
		tally.Codes(t, "tpujob batched", byID[id], codes)
	}
	tally.Log(t, "tpujob batched")

	check := b2tgolden.NewOutputs(t, "tpujob parquet", files)
	for _, req := range reqs {
		if err := corpus.Read(ctx, store, req.Output, b2tgolden.OutputColumns, func(r *manifest.Rows) error { return check.Rows(t, r) }); err != nil {
			t.Fatal(err)
		}
	}
	check.Done(t)
}
