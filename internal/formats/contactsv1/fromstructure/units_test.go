package fromstructure_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/foldcorpus/foldcorpus/internal/testcorpus/pdbgolden"
	"github.com/foldcorpus/foldcorpus/planner"
)

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
		err = manifest.ReadFile(ctx, localblob.Store{}, f, nil, cols, func(r *manifest.Rows) error {
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
	for _, set := range pdbgolden.Sets(dir) {
		t.Run(set.File, func(t *testing.T) {
			tmp := t.TempDir()
			var rows [][]any
			want := map[string]map[string]json.RawMessage{}
			ledgers := map[string]map[string]json.RawMessage{}
			lines, err := pdbgolden.Read(set.Path())
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range lines {
				if !g.Selected() {
					continue
				}
				var res any
				if g.Task.Resolution != nil {
					res = *g.Task.Resolution
				}
				rows = append(rows, []any{g.PDBID, "file://" + filepath.Join(dir, g.File), g.Task.ReleaseDate, res,
					g.Task.Method, g.Task.EstResidues, g.Task.Assembly1ProteinChains, g.Task.ProcessingRank})
				for i, d := range g.Documents {
					want[g.DocumentString(i, "entry_id")] = d
				}
				var led map[string]json.RawMessage
				if err := json.Unmarshal(g.Ledger, &led); err != nil {
					t.Fatal(err)
				}
				ledgers[g.PDBID] = led
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
					"max_chains": "60", "clusters": set.Clusters()},
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
			t.Logf("%s through run: %d monomer and %d multimer documents and %d ledger rows equal exp222's", set.File, equal["monomer"], equal["multimer"], equal["ledger"])
			if equal["monomer"] != set.Monomers || equal["multimer"] != set.Multimers {
				t.Errorf("%d monomer and %d multimer documents equal exp222's, want %d and %d", equal["monomer"], equal["multimer"], set.Monomers, set.Multimers)
			}
		})
	}
}
