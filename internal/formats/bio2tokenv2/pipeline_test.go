package bio2tokenv2_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/duckcheck"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/inprocess"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestLocalRunEndToEnd runs bio2token-v2 through the normal local pipeline
// (planner, shard function, parquet output) on the CPU backend and reads
// the output back in DuckDB: every document equals the format's own.
func TestLocalRunEndToEnd(t *testing.T) {
	dir := testcorpus.Dir(t)
	files := []string{"pdb/1l2y.cif", "afdb/AF-C1P619-F1-model_v6.cif", "pdb/1crn.cif"}
	tmp := t.TempDir()
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}
	var rows [][]any
	for _, f := range files {
		rows = append(rows, []any{strings.TrimSuffix(filepath.Base(f), ".cif"), filepath.Join(dir, f)})
	}
	data, err := manifest.Encode(cols, rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "m.parquet"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	opts := map[string]string{fb2t.OptWeights: "generated:3"}
	spec := planner.Spec{Manifest: filepath.Join(tmp, "m.parquet"), Format: fb2t.Name, Options: opts, Output: out}
	if _, err := localrun.Run(context.Background(), localrun.Config{Spec: spec, Workers: 1, Parse: mmcif.ReadInto, Retries: -1}); err != nil {
		t.Fatal(err)
	}
	f, err := inprocess.New(fb2t.Name, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := duckcheck.Query(t, fmt.Sprintf(`SELECT entry_id, document, num_tokens, num_atoms, num_atoms_total, truncated, seq_length, sequence
		FROM read_parquet('%s/*.parquet') ORDER BY entry_id`, out))
	if len(got) != len(files) {
		t.Fatalf("DuckDB read %d rows, want %d", len(got), len(files))
	}
	byID := map[string]map[string]any{}
	for _, r := range got {
		byID[fmt.Sprint(r["entry_id"])] = r
	}
	for i, file := range files {
		s, err := mmcif.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		want, err := f.Generate(format.Input{EntryID: rows[i][0].(string), Structure: s})
		if err != nil {
			t.Fatal(err)
		}
		r := byID[rows[i][0].(string)]
		if r == nil {
			t.Fatalf("%s missing from the output", rows[i][0])
		}
		if r["document"] != want.Document || fmt.Sprint(r["num_tokens"]) != fmt.Sprint(want.Values[5]) || r["sequence"] != want.Values[0] {
			t.Errorf("%s: output row differs from Generate: %v", rows[i][0], r["num_tokens"])
		}
	}
}
