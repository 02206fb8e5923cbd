package emulatortests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus/pdbgolden"
)

// TestPDBCurationThroughEmulators is exp222 in the cloud: the golden's
// edge entries as gzip objects (as the mirror holds them); their header
// scan as a run of pdb-header through the deployed functions; `select
// --pdb` on the scan's shards in the bucket (exp222's selection and
// processing ranks); the cluster file and the mini library in the
// bucket, and a run of contacts-v1 over the selection with
// units=chains,assembly1 curation=af3 max_chains=60 through the deployed
// functions (planner, Pub/Sub push, shard function). Every shard is done;
// both subsets' documents are exp222's (entry ids and sha1s); each shard
// has its ledger file with one row per entry and exp222's multimer
// status; and `foldcorpus verify` finds the corpus whole.
func TestPDBCurationThroughEmulators(t *testing.T) {
	dir := testcorpus.Dir(t)
	set := pdbgolden.Sets(dir)[1] // the edge cases
	lines, err := pdbgolden.Read(set.Path())
	if err != nil {
		t.Fatal(err)
	}
	var gold []pdbgolden.Line
	for _, g := range lines {
		if g.Selected() {
			gold = append(gold, g)
		}
	}
	s := newStack(t, stackOpts{})
	lib := filepath.Join(dir, "golden", "confind-mini-rotlib")
	for _, name := range []string{"EBL.out", "BEBL.out"} {
		data, err := os.ReadFile(filepath.Join(lib, name))
		if err != nil {
			t.Fatal(err)
		}
		s.put(dataBucket, "rotlib/"+name, data, "")
	}
	clusters, err := os.ReadFile(set.Clusters())
	if err != nil {
		t.Fatal(err)
	}
	s.put(dataBucket, "pdb/clusters-by-entity-40.txt", clusters, "")
	// The header scan, in the cloud: a run of pdb-header over the files
	// (every edge entry, the two exp222 rejects included).
	var files [][]any
	for _, g := range lines {
		data, err := os.ReadFile(filepath.Join(dir, g.File))
		if err != nil {
			t.Fatal(err)
		}
		name := "pdb/" + g.PDBID + ".cif.gz"
		s.put(dataBucket, name, gzipBytes(t, data), "")
		files = append(files, []any{g.PDBID, "gs://" + dataBucket + "/" + name})
	}
	fdata, err := manifest.Encode(manifestCols, files, 8)
	if err != nil {
		t.Fatal(err)
	}
	s.put(dataBucket, "manifests/files.parquet", fdata, "")
	scanSpec, _ := json.Marshal(map[string]any{"manifest": "gs://" + dataBucket + "/manifests/files.parquet", "format": "pdb-header",
		"row_groups_per_shard": 1})
	gen := s.put(manifestBucket, "runs/scan.run.json", scanSpec, "")
	scanned := s.waitSettled(fmt.Sprintf("gs://%s/runs/scan.run.json#%d", manifestBucket, gen), 120*time.Second)
	for _, sh := range scanned {
		if sh.Status != ledger.Done {
			t.Fatalf("scan shard %d: %s (%s)", sh.Index, sh.Status, sh.Error)
		}
	}
	scanOut := scanned[0].Output[:strings.LastIndex(scanned[0].Output, "/")]

	// select --pdb on the scan's shards, read from the bucket; its
	// generation manifest (5-row groups) goes back to the bucket.
	sel := filepath.Join(t.TempDir(), "sel")
	if msg, code := s.cli("select", "--pdb", "--input", scanOut+"/part-*.parquet", "--shard-size", "5", "--out", sel); code != 0 {
		t.Fatalf("select --pdb on the cloud scan exited %d:\n%s", code, msg)
	}
	parts, err := filepath.Glob(filepath.Join(sel, "manifest", "*.parquet"))
	if err != nil || len(parts) == 0 {
		t.Fatalf("select --pdb wrote no generation manifest: %v", err)
	}
	var rows [][]any
	for _, p := range parts {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s.put(dataBucket, "manifests/pdb/"+filepath.Base(p), data, "")
		err = manifest.ReadFile(s.ctx, localblob.Store{}, p, nil, []string{"entry_id", "processing_rank"}, func(r *manifest.Rows) error {
			rows = append(rows, r.Values...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rank := map[string]int64{}
	for _, g := range gold {
		rank[g.PDBID] = g.Task.ProcessingRank
	}
	if len(rows) != len(gold) {
		t.Errorf("the cloud scan's selection holds %d entries, exp222 selected %d", len(rows), len(gold))
	}
	for _, r := range rows {
		if id := r[0].(string); rank[id] != r[1] {
			t.Errorf("selected %s at rank %v; exp222: %d", id, r[1], rank[id])
		}
	}

	wantDocs := map[string]string{}
	wantStatus := map[string]string{}
	wantSubsets := map[string]int64{}
	for _, g := range gold {
		for i := range g.Documents {
			wantDocs[g.DocumentString(i, "entry_id")] = g.DocumentString(i, "sha1")
			wantSubsets[g.DocumentString(i, "subset")]++
		}
		var led struct {
			MultimerStatus string `json:"multimer_status"`
		}
		if err := json.Unmarshal(g.Ledger, &led); err != nil {
			t.Fatal(err)
		}
		wantStatus[g.PDBID] = led.MultimerStatus
	}
	manifestURI := "gs://" + dataBucket + "/manifests/pdb/*.parquet"
	spec, _ := json.Marshal(map[string]any{"manifest": manifestURI, "format": "contacts-v1",
		"options": map[string]string{"rotlib": "gs://" + dataBucket + "/rotlib", "units": "chains,assembly1", "curation": "af3",
			"max_chains": "60", "clusters": "gs://" + dataBucket + "/pdb/clusters-by-entity-40.txt"},
		"row_groups_per_shard": 1})
	gen = s.put(manifestBucket, "runs/pdb.run.json", spec, "")
	runID := fmt.Sprintf("gs://%s/runs/pdb.run.json#%d", manifestBucket, gen)

	shards := s.waitSettled(runID, 180*time.Second)
	if len(shards) != (len(rows)+4)/5 {
		t.Errorf("%d shards, want %d (one per row group of 5)", len(shards), (len(rows)+4)/5)
	}
	var sum ledger.Counts
	for _, sh := range shards {
		if sh.Status != ledger.Done {
			t.Fatalf("shard %d: %s (%s)", sh.Index, sh.Status, sh.Error)
		}
		sum.Add(sh.Counts)
	}
	if !sum.Balanced() || sum.Entries != int64(len(gold)) || fmt.Sprint(sum.UnitDocs) != fmt.Sprint(wantSubsets) {
		t.Errorf("ledger counts %+v: want %d entries, documents %v, balanced", sum, len(gold), wantSubsets)
	}
	docs, _ := s.outputs(shards)
	if len(docs) != len(wantDocs) {
		t.Errorf("%d documents through the functions, exp222 wrote %d", len(docs), len(wantDocs))
	}
	for _, d := range docs {
		if w, ok := wantDocs[d[0]]; !ok || w != d[1] {
			t.Errorf("document %s sha1 %s: exp222's is %q", d[0], d[1], w)
		}
	}
	seen := 0
	for _, sh := range shards {
		err := manifest.ReadFile(s.ctx, s.store, corpus.LedgerURI(sh.Output), nil, []string{"entry_id", "multimer_status"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				seen++
				if id, _ := v[0].(string); wantStatus[id] != v[1] {
					t.Errorf("ledger of %s: multimer_status %v, exp222 %q", id, v[1], wantStatus[id])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("shard %d's ledger file: %v", sh.Index, err)
		}
	}
	if seen != len(gold) {
		t.Errorf("%d ledger rows, want %d (one per entry)", seen, len(gold))
	}
	out := shards[0].Output[:strings.LastIndex(shards[0].Output, "/")]
	if msg, code := s.cli("verify", "--deep", "--manifest", manifestURI, "--row-groups-per-shard", "1", out); code != 0 {
		t.Errorf("foldcorpus verify exited %d:\n%s", code, msg)
	}
}
