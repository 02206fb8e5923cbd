package corpus_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// encode writes rows into a file; setup, if any, sees the Writer before
// the first row.
func encode(t *testing.T, s corpus.Schema, rows [][]any, acc corpus.Accounting, setup ...func(*corpus.Writer)) []byte {
	t.Helper()
	w, err := corpus.NewWriter(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(w)
	}
	for _, r := range rows {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	data, err := w.Finish(acc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// readRows reads every column of every row of the local file p.
func readRows(t *testing.T, p string) [][]any {
	t.Helper()
	var got [][]any
	if err := corpus.Read(context.Background(), localblob.Store{}, p, nil, func(r *manifest.Rows) error {
		got = append(got, r.Values...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWriteReadRoundTrip(t *testing.T) {
	s := corpus.NewSchema(
		[]format.Column{{Name: "seq_len", Type: format.Int64}, {Name: "scores", Type: format.Float64List}},
		[]format.Column{{Name: "split", Type: format.String}, {Name: "seq_len", Type: format.Int64}, {Name: "tags", Type: format.StringList, Nullable: true}})
	if got := fmt.Sprint(s.Names()); got != "[entry_id structure document sha1 seq_len scores split tags]" {
		t.Fatalf("schema = %s", got)
	}
	var rows [][]any
	for i := 0; i < corpus.RowGroupRows+7; i++ { // two row groups
		var tags any
		if i%2 == 0 {
			tags = []string{"a", fmt.Sprint(i)}
		}
		rows = append(rows, []any{fmt.Sprint("E", i), "file:///x", "doc", "sha", int64(i), []float64{0.5, float64(i)}, "train", tags})
	}
	acc := corpus.Accounting{RunID: "r", Shard: 1, Total: 2, Format: "f", RowsIn: int64(len(rows)) + 3, DocsOut: int64(len(rows)),
		Filtered: map[string]int64{"too_short": 2, "no_room": 1}}
	a, b := encode(t, s, rows, acc), encode(t, s, rows, acc)
	if !bytes.Equal(a, b) {
		t.Fatal("same rows and accounting gave different bytes")
	}
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "o.parquet")
	if err := (localblob.Store{}).Create(ctx, p, a); err != nil {
		t.Fatal(err)
	}
	m, err := corpus.ReadMeta(ctx, localblob.Store{}, p)
	if err != nil {
		t.Fatal(err)
	}
	if m.NumRows != int64(len(rows)) || !m.Accounting.Balanced() || m.Accounting.Filtered["too_short"] != 2 || m.BytesRead >= int64(len(a)) {
		t.Errorf("meta = %+v (file %d bytes)", m, len(a))
	}
	if got := readRows(t, p); fmt.Sprint(got) != fmt.Sprint(rows) {
		t.Errorf("read back %v\nwant %v", got[:2], rows[:2])
	}
	w, _ := corpus.NewWriter(s)
	if err := w.Append([]any{"E", "s", "d", "h", "not an int", nil, nil, nil}); err == nil {
		t.Error("Append with a wrong type succeeded")
	}
}
