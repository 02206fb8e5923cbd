package fromstructure_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/selection"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

// pdbGolden is the part of a pdb-curation(-edge).jsonl line a run must
// reproduce: the selection's task, the ledger row and the document rows.
type pdbGolden struct {
	File        string `json:"file"`
	PDBID       string `json:"pdb_id"`
	EntryFilter string `json:"entry_filter"`
	Task        *struct {
		ReleaseDate string   `json:"release_date"`
		Resolution  *float64 `json:"resolution"`
		Method      string   `json:"method"`
		EstResidues int64    `json:"est_residues"`
		Chains      int64    `json:"assembly1_protein_chains"`
		Rank        int64    `json:"processing_rank"`
	} `json:"task"`
	Ledger    map[string]json.RawMessage   `json:"ledger"`
	Documents []map[string]json.RawMessage `json:"documents"`
}

func readPDBGolden(t *testing.T, path string) []pdbGolden {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []pdbGolden
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		var g pdbGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// jsonEqual compares a value read back from parquet with exp222's JSON.
func jsonEqual(got any, want json.RawMessage) bool {
	b, err := json.Marshal(got)
	if err != nil {
		return false
	}
	var g, w any
	_ = json.Unmarshal(b, &g)
	_ = json.Unmarshal(want, &w)
	return reflect.DeepEqual(g, w)
}

// readAll reads every row of the files matching glob, keyed by column.
func readAll(t *testing.T, glob string) []map[string]any {
	t.Helper()
	ctx := context.Background()
	files, err := (localblob.Store{}).List(ctx, glob)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, f := range files {
		s, err := manifest.ReadSchema(ctx, localblob.Store{}, f)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for _, c := range s.Columns {
			cols = append(cols, c.Name)
		}
		err = manifest.ReadShard(ctx, localblob.Store{}, f, nil, cols, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				m := map[string]any{}
				for i, c := range r.Columns {
					m[c] = v[i]
				}
				out = append(out, m)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return out
}

// TestRunPDBCuration is exp222 through `run`: a manifest of the golden's
// selected entries (the columns `select --pdb` writes, the files as the
// mirror holds them), contacts-v1 with units=chains,assembly1
// curation=af3 max_chains=60 and the golden's cluster file. Every document
// row (entry id, sha1, every exp222 column) and every ledger row equals
// exp222's, and the accounting counts each entry once.
func TestRunPDBCuration(t *testing.T) {
	dir := testcorpus.Dir(t)
	lib := filepath.Join(dir, "golden", "confind-mini-rotlib")
	base := filepath.Join(dir, "golden", "pdb-curation")
	for _, set := range []struct{ dir, file string }{
		{base, "pdb-curation.jsonl"},
		{filepath.Join(base, "edge"), "pdb-curation-edge.jsonl"},
	} {
		t.Run(set.file, func(t *testing.T) {
			tmp := t.TempDir()
			var rows [][]any
			want := map[string]map[string]json.RawMessage{}
			ledgers := map[string]map[string]json.RawMessage{}
			for _, g := range readPDBGolden(t, filepath.Join(set.dir, set.file)) {
				if g.EntryFilter != "selected" {
					continue
				}
				var res any
				if g.Task.Resolution != nil {
					res = *g.Task.Resolution
				}
				rows = append(rows, []any{g.PDBID, "file://" + filepath.Join(dir, g.File), g.Task.ReleaseDate, res,
					g.Task.Method, g.Task.EstResidues, g.Task.Chains, g.Task.Rank})
				for _, d := range g.Documents {
					var id string
					_ = json.Unmarshal(d["entry_id"], &id)
					want[id] = d
				}
				ledgers[g.PDBID] = g.Ledger
			}
			data, err := manifest.Encode(selection.PDBManifestColumns(), rows, 5)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := (localblob.Store{}).Create(ctx, filepath.Join(tmp, "m.parquet"), data); err != nil {
				t.Fatal(err)
			}
			spec := planner.Spec{Manifest: filepath.Join(tmp, "m.parquet"), Format: "contacts-v1",
				Options: map[string]string{"rotlib": lib, "units": "chains,assembly1", "curation": "af3",
					"max_chains": "60", "clusters": filepath.Join(set.dir, "clusters-by-entity-40.txt")},
				Output: filepath.Join(tmp, "out"), RowGroupsPerShard: 2}
			sum, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 2, Parse: mmcif.ReadInto})
			if err != nil {
				t.Fatal(err)
			}
			docs := readAll(t, filepath.Join(spec.Output, "part-*.parquet"))
			if len(docs) != len(want) || sum.Docs != int64(len(want)) {
				t.Errorf("%d documents (run says %d), exp222 wrote %d", len(docs), sum.Docs, len(want))
			}
			equal := map[string]int{}
			for _, d := range docs {
				id := d["entry_id"].(string)
				w, ok := want[id]
				if !ok {
					t.Errorf("%s: a document exp222 did not write", id)
					continue
				}
				var diffs []string
				for k, raw := range w {
					if k == "shard" || k == "shard_row" {
						continue
					}
					if !jsonEqual(d[k], raw) {
						diffs = append(diffs, fmt.Sprintf("%s: got %.100v, want %.100s", k, d[k], raw))
					}
				}
				sort.Strings(diffs)
				if len(diffs) > 0 {
					t.Errorf("%s:\n  %s", id, strings.Join(diffs, "\n  "))
					continue
				}
				equal[d["subset"].(string)]++
			}
			led := readAll(t, filepath.Join(spec.Output, corpus.LedgerDir, "part-*.parquet"))
			if len(led) != len(ledgers) {
				t.Errorf("%d ledger rows, want %d (one per selected entry)", len(led), len(ledgers))
			}
			for _, l := range led {
				id := l["entry_id"].(string)
				w := ledgers[id]
				if len(w) == 0 {
					t.Errorf("ledger row of %s: not a selected entry", id)
					continue
				}
				for k, raw := range w {
					if !jsonEqual(l[k], raw) {
						t.Errorf("ledger %s %s: got %v, want %s", id, k, l[k], raw)
					}
				}
				equal["ledger"]++
			}
			t.Logf("%s through run: %d monomer and %d multimer documents and %d ledger rows equal exp222's", set.file, equal["monomer"], equal["multimer"], equal["ledger"])
		})
	}
}
