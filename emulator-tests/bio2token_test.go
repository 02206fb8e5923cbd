package emulatortests

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/bio2token/b2tgolden"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/tpujob"
)

// TestBio2TokenGoldenThroughEmulators: a bio2token-v2 run spec over golden
// files lands in the bucket; the Planner (pushed by the Pub/Sub emulator)
// plans two shards; ShardFn fetches, parses, adapts and stages them and
// publishes tokenize requests to the tokenize topic; the tokenize job
// pulls them from the emulator, encodes with the PyTorch-written golden
// checkpoint (CPU backend, batched and padded), writes the parquet to
// fake GCS and marks the shards done in the Firestore emulator. Every
// document equals the reference generator's, byte for byte or differing
// only in near-tie code tokens.
func TestBio2TokenGoldenThroughEmulators(t *testing.T) {
	files := b2tgolden.Smallest(b2tgolden.Load(t), 3)
	ckpt := b2tgolden.Checkpoint(t)
	s := newStack(t, stackOpts{noFunctions: true})
	const tokenizeTopic = "tokenize"
	if err := emulators.CreateTopics(s.ctx, s.ps, s.project, tokenizeTopic); err != nil {
		t.Fatal(err)
	}
	s.subscribe(tokenizeTopic+"-pull", tokenizeTopic, "", nil)
	s.env = append(s.env, "FOLDCORPUS_TOKENIZE_TOPIC="+tokenizeTopic)
	bin := functionsBinary(t)
	for _, target := range []string{"Planner", "ShardFn", "DeadLetter"} {
		s.fns[target] = startFn(t, bin, s.env, target, 0)
	}
	s.subscribe(eventsTopic+"-push", eventsTopic, s.fns["Planner"].pushURL(s.project, eventsTopic), nil)
	s.subscribe(shardTopic+"-push", shardTopic, s.fns["ShardFn"].pushURL(s.project, shardTopic), nil)
	t.Cleanup(func() {
		if t.Failed() {
			for name, p := range s.fns {
				t.Logf("--- %s log (last 40 lines) ---\n%s", name, p.tail(40))
			}
		}
	})

	// Structures and the manifest (two row groups: two shards) in the data
	// bucket; the run spec in the manifest bucket starts the run.
	var rows [][]any
	for _, g := range files {
		data, err := os.ReadFile(g.Path)
		if err != nil {
			t.Fatal(err)
		}
		name := "cif/" + filepath.Base(g.File)
		s.put(dataBucket, name, data, "")
		rows = append(rows, []any{g.EntryID, "gs://" + dataBucket + "/" + name})
	}
	mdata, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	s.put(dataBucket, "manifests/b2t.parquet", mdata, "")
	// As in the cloud, the run spec names the checkpoint in GCS: the
	// functions only adapt and stage, and never read it; the tokenize job
	// has its own copy.
	ckptData, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	s.put(outBucket, "models/bio2token.ckpt", ckptData, "")
	spec, _ := json.Marshal(map[string]any{"manifest": "gs://" + dataBucket + "/manifests/b2t.parquet", "format": "bio2token-v2",
		"options": map[string]string{"weights": "gs://" + outBucket + "/models/bio2token.ckpt"}, "row_groups_per_shard": 1})
	gen := s.put(manifestBucket, "runs/b2t.run.json", spec, "")
	runID := fmt.Sprintf("gs://%s/runs/b2t.run.json#%d", manifestBucket, gen)

	// The shards are staged and handed off: pending, unclaimed.
	s.waitFor(runID, 120*time.Second, "staged", func(p map[ledger.Status]int64, n int) bool {
		shards, err := s.ledger.Shards(s.ctx, runID)
		if err != nil || len(shards) != n || n != 2 {
			return false
		}
		for _, sh := range shards {
			if sh.Status != ledger.Pending || !strings.Contains(sh.LastError, "staged") {
				return false
			}
		}
		return true
	})

	// The tokenize job, pulling from the emulator.
	enc, err := neural.Open(ckpt, "go")
	if err != nil {
		t.Fatal(err)
	}
	runner := &b2tgolden.Runner{Enc: enc, MaxRows: 4}
	job, err := tpujob.New(tpujob.Config{Devices: 1, Ladder: []int{512, 1024}, FlushAfter: time.Second}, runner, s.store, s.ledger)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	ctx, cancel := context.WithCancel(s.ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = job.Receive(ctx, s.ps.Subscriber(tokenizeTopic+"-pull"), 4) }()
	shards := s.waitSettled(runID, 300*time.Second)
	cancel()
	wg.Wait()

	check := b2tgolden.NewOutputs(t, "emulators", files)
	for _, sh := range shards {
		if sh.Status != ledger.Done || sh.SHA256 == "" {
			t.Errorf("shard %d: %s (%s)", sh.Index, sh.Status, sh.Error)
			continue
		}
		if err := corpus.Read(s.ctx, s.store, sh.Output, b2tgolden.OutputColumns, func(r *manifest.Rows) error { return check.Rows(t, r) }); err != nil {
			t.Fatal(err)
		}
	}
	check.Done(t)
	t.Logf("device batches (structures each): %v", runner.Batches())
	if out, code := s.cli("status", "--run", runID); code != 0 || !strings.Contains(out, "COMPLETE") {
		t.Errorf("status --run exited %d:\n%s", code, out)
	}
}
