package corpus_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
)

// TestMix: a file carries its rows' token mix in its footer (MixKey), one
// count per class and row; a mix that does not cover every row is refused
// rather than written.
func TestMix(t *testing.T) {
	s := corpus.NewSchema(nil, nil)
	row := func(int) []any { return []any{"e", "u", "doc", "sha"} }
	classes := []string{"a", "b"}
	tests := []struct {
		name    string
		mixes   [][]int64 // nil entry: no AppendMix for that row
		wantErr bool
	}{
		{"every row", [][]int64{{1, 2}, {3, 4}, {5, 6}}, false},
		{"a row without its mix", [][]int64{{1, 2}, nil, {5, 6}}, true},
		{"too few counts", [][]int64{{1, 2}, {3}}, true},
	}
	for _, tt := range tests {
		w, err := corpus.NewWriter(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.SetMixClasses(classes); err != nil {
			t.Fatal(err)
		}
		var failed bool
		for i, m := range tt.mixes {
			if err := w.Append(row(i)); err != nil {
				t.Fatal(err)
			}
			if m != nil && w.AppendMix(m) != nil {
				failed = true
			}
		}
		data, err := w.Finish(corpus.Accounting{RunID: "r"})
		if failed || err != nil {
			if !tt.wantErr {
				t.Errorf("%s: refused (Finish: %v)", tt.name, err)
			}
			continue
		}
		if tt.wantErr {
			t.Errorf("%s: written, want an error", tt.name)
			continue
		}
		pf, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		v := pf.MetaData().KeyValueMetadata().FindValue(corpus.MixKey)
		if v == nil {
			t.Fatalf("%s: no %s in the footer", tt.name, corpus.MixKey)
		}
		var m corpus.Mix
		if err := json.Unmarshal([]byte(*v), &m); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m.Classes, classes) || !slices.Equal(m.Counts[0], []int64{1, 3, 5}) || !slices.Equal(m.Counts[1], []int64{2, 4, 6}) {
			t.Errorf("%s: footer mix %+v", tt.name, m)
		}
	}
	// Without mix classes, no mix key.
	w, err := corpus.NewWriter(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(row(0)); err != nil {
		t.Fatal(err)
	}
	data, err := w.Finish(corpus.Accounting{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if pf.MetaData().KeyValueMetadata().FindValue(corpus.MixKey) != nil {
		t.Errorf("a file without mix classes has %s", corpus.MixKey)
	}
}
