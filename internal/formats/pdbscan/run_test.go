package pdbscan_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestRunIsTheScan: `run --format pdb-header` over a manifest of the
// corpus's PDB files (plain and gzip, mmCIF and PDB format, unreadable
// ones) writes, row for row, the entries table `foldcorpus scan` writes
// (pdbheader.Scan of the same object under the same URI), in shards that
// select --pdb reads back (pdbheader.FromRow); nothing fails.
func TestRunIsTheScan(t *testing.T) {
	dir := testcorpus.Dir(t)
	files, err := filepath.Glob(filepath.Join(dir, "pdb", "*"))
	if err != nil || len(files) < 40 {
		t.Fatalf("%d PDB corpus files (%v), want the corpus's 43", len(files), err)
	}
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "9bad.cif")
	if err := os.WriteFile(bad, []byte("not a structure\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, bad)
	sort.Strings(files)
	var rows [][]any
	want := map[string][]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		id := filepath.Base(f)
		rows = append(rows, []any{id, f})
		want[id] = pdbheader.Scan(data, f).Row()
	}
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}
	data, err := manifest.Encode(cols, rows, 10)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := (localblob.Store{}).Create(ctx, filepath.Join(tmp, "m.parquet"), data); err != nil {
		t.Fatal(err)
	}
	spec := planner.Spec{Manifest: filepath.Join(tmp, "m.parquet"), Format: "pdb-header", Output: filepath.Join(tmp, "out"), RowGroupsPerShard: 1}
	sum, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 2, Parse: mmcif.ReadInto})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Docs != int64(len(files)) {
		t.Errorf("%d rows written, want %d", sum.Docs, len(files))
	}
	shards, err := (localblob.Store{}).List(ctx, filepath.Join(spec.Output, "part-*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	names := append([]string{"entry_id"}, columnNames(pdbheader.Columns())...)
	got, errs := 0, 0
	for _, s := range shards {
		err := manifest.ReadFile(ctx, localblob.Store{}, s, nil, names, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				id := v[0].(string)
				if !reflect.DeepEqual(v[1:], want[id]) {
					t.Errorf("%s:\n got %v\nwant %v", id, v[1:], want[id])
				}
				e, err := pdbheader.FromRow(r.Columns[1:], v[1:])
				if err != nil {
					t.Errorf("%s: select --pdb cannot read the row back: %v", id, err)
				}
				if e.Error != nil {
					errs++
				}
				got++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got != len(files) || errs == 0 {
		t.Errorf("%d rows read back (%d with a scan error), want %d with the crafted bad file's error", got, errs, len(files))
	}
}

func columnNames(cols []format.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}
