package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/dedup"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// TestDedupCommand runs dedup on a small run folder (two shards, the
// run's naming): 5 rows of which two monomers share cluster 7 and two
// unclustered peptides one sequence (the better resolution wins; none
// reported loses), and checks the counts of the mixed cut, of
// --subset monomers and of --max-per-cluster 2, and that a second cut into
// the same folder is refused.
func TestDedupCommand(t *testing.T) {
	run := t.TempDir()
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "document", Type: format.String},
		{Name: "subset", Type: format.String}, {Name: "cluster_ids", Type: format.Int64List},
		{Name: "resolved_seq_sha1", Type: format.String}, {Name: "resolution", Type: format.Float64, Nullable: true},
		{Name: "seq_len", Type: format.Int64}}
	shards := [][][]any{
		{{"1abc_A", "d1", "monomer", []int64{7}, "s1", 2.0, int64(100)}, {"1abc_assembly1", "d2", "multimer", []int64{7, 7}, "s2", 2.0, int64(200)}},
		{{"2xyz_A", "d3", "monomer", []int64{7}, "s3", 1.5, int64(90)}, {"3pep_A", "d4", "monomer", []int64{-1}, "s4", nil, int64(9)}, {"4pep_A", "d5", "monomer", []int64{-1}, "s4", 3.0, int64(9)}},
	}
	for i, rows := range shards {
		w, err := corpus.NewWriter(corpus.Schema{Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		data, err := w.Finish(corpus.Accounting{RowsIn: int64(len(rows)), DocsOut: int64(len(rows))})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, []string{"part-00000-of-00002.parquet", "part-00001-of-00002.parquet"}[i]), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		args              []string
		out, dropped      int64
		monomer, multimer int64
	}{
		// groups: cluster 7 (1abc_A, 2xyz_A), cluster 7,7, seq:1:s4 (3pep_A
		// without a resolution, 4pep_A at 3 A)
		{nil, 3, 2, 2, 1},
		{[]string{"--subset", "monomers"}, 2, 2, 2, 0},
		{[]string{"--max-per-cluster", "2"}, 5, 0, 4, 1},
	} {
		out := filepath.Join(t.TempDir(), "cut")
		if err := runDedup(ctx, append([]string{run, "--out", out}, tc.args...)); err != nil {
			t.Fatal(err)
		}
		var st dedup.Stats
		b, err := os.ReadFile(filepath.Join(out, dedup.StatsFile))
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(b, &st)
		if st.RowsIn != 5 || st.DocsOut != tc.out || st.DroppedDuplicates != tc.dropped || st.DocsBySubset["monomer"] != tc.monomer || st.DocsBySubset["multimer"] != tc.multimer {
			t.Errorf("dedup %v: %+v", tc.args, st)
		}
		if tc.args == nil {
			var kept []string
			for _, sh := range st.Shards {
				corpus.Read(ctx, cliStores(), filepath.Join(out, sh), []string{"entry_id"}, func(r *manifest.Rows) error {
					for _, v := range r.Values {
						kept = append(kept, v[0].(string))
					}
					return nil
				})
			}
			for _, id := range kept {
				if id == "1abc_A" || id == "3pep_A" {
					t.Errorf("dedup kept %s over its group's better member (%v)", id, kept)
				}
			}
			if err := runDedup(ctx, []string{run, "--out", out}); err == nil {
				t.Error("a second cut into the same folder was not refused")
			}
		}
	}
}
