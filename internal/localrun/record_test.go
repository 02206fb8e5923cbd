package localrun_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

// jsonValue converts a decoded JSON value to the Go type of a column.
func jsonValue(t format.ColumnType, v any) any {
	if v == nil {
		return nil
	}
	switch t {
	case format.Int64:
		return int64(v.(float64))
	case format.Int64List:
		var out []int64
		for _, x := range v.([]any) {
			out = append(out, int64(x.(float64)))
		}
		return out
	case format.Float64List:
		var out []float64
		for _, x := range v.([]any) {
			out = append(out, x.(float64))
		}
		return out
	case format.StringList:
		var out []string
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	return v
}

// TestEndToEndRecordFormat runs the record path (no fetch: the format reads
// the projected manifest row) with contacts-v1 over the golden analysis
// records of the "default" variant and compares the documents.
func TestEndToEndRecordFormat(t *testing.T) {
	dir := testcorpus.Dir(t)
	f, err := registry.Builtin().New("contacts-v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := f.RecordColumns()
	fh, err := os.Open(filepath.Join(dir, "golden", "contacts-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var rows [][]any
	var want []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var g struct {
			Variant string          `json:"variant"`
			Input   map[string]any  `json:"input"`
			Outcome string          `json:"outcome"`
			Output  json.RawMessage `json:"output"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if g.Variant != "default" || g.Outcome != "document" {
			continue
		}
		var out struct {
			Document string `json:"document"`
		}
		if err := json.Unmarshal(g.Output, &out); err != nil {
			t.Fatal(err)
		}
		row := make([]any, len(cols))
		for i, c := range cols {
			row[i] = jsonValue(c.Type, g.Input[c.Name])
		}
		rows = append(rows, row)
		want = append(want, out.Document)
	}
	if len(rows) == 0 {
		t.Fatal("no default-variant document records in the golden file")
	}
	tmp := t.TempDir()
	data, err := manifest.Encode(cols, rows, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := (localblob.Store{}).Create(context.Background(), filepath.Join(tmp, "m", "records.parquet"), data); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	sum, err := localrun.Run(context.Background(), localrun.Config{Spec: planner.Spec{
		Manifest: filepath.Join(tmp, "m", "*.parquet"), Format: "contacts-v1", Output: out,
		AllowDuplicateIDs: true}}) // the golden records hold two models of some accessions
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if sum.Plan.Projection.URIColumn != "" || len(sum.Plan.Projection.Record) != len(cols) {
		t.Errorf("projection = %+v, want the record columns and no URI column", sum.Plan.Projection)
	}
	var got []string
	err = corpus.Read(context.Background(), localblob.Store{}, filepath.Join(out, "part-00000-of-00001.parquet"), []string{"document"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			got = append(got, v[0].(string))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d documents, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: document differs from the golden one", i)
		}
	}
}
