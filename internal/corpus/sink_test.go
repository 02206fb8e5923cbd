package corpus_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// TestWriterExpectRows writes a file of many row groups told its row
// count: its buffer is sized after the first row group (not grown by
// doubling, copying the file each time), and the bytes are the same
// whatever the count said.
func TestWriterExpectRows(t *testing.T) {
	s := corpus.NewSchema([]format.Column{{Name: "scores", Type: format.Float64List}}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"<ca>", "<cb>", "<n>", "ALA", "GLY", "<dist>", "12.5", "<contact>", "\n"}
	var rows [][]any
	for i := range 12*corpus.RowGroupRows + 3 {
		var b strings.Builder
		for n := 2000 + rng.IntN(30<<10); b.Len() < n; {
			b.WriteString(words[rng.IntN(len(words))])
		}
		rows = append(rows, []any{fmt.Sprint("E", i), "file:///x", b.String(), fmt.Sprintf("%040d", i), []float64{float64(i), 0.5}})
	}
	acc := corpus.Accounting{RunID: "r", RowsIn: int64(len(rows)), DocsOut: int64(len(rows))}
	var w *corpus.Writer
	data := encode(t, s, rows, acc, func(ew *corpus.Writer) {
		w = ew
		w.ExpectRows(int64(len(rows)))
	})
	// grown by doubling, the file would be copied about once over; sized
	// after its first row group, only that row group is
	if c, copied := corpus.FileBuffer(w); c > len(data)*5/4 || copied > len(data)/3 {
		t.Errorf("file buffer of %d bytes, %d bytes copied growing it, for a %d-byte file of the expected rows", c, copied, len(data))
	}
	for _, expect := range []int64{0, 3, int64(len(rows)) * 10} {
		if other := encode(t, s, rows, acc, func(w *corpus.Writer) { w.ExpectRows(expect) }); !bytes.Equal(other, data) {
			t.Fatalf("ExpectRows(%d) wrote other bytes than ExpectRows(%d)", expect, len(rows))
		}
	}
	p := filepath.Join(t.TempDir(), "o.parquet")
	if err := (localblob.Store{}).Create(context.Background(), p, data); err != nil {
		t.Fatal(err)
	}
	got := readRows(t, p)
	if len(got) != len(rows) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
	}
	for i := range rows {
		if fmt.Sprint(got[i]) != fmt.Sprint(rows[i]) {
			t.Fatalf("row %d read back differs", i)
		}
	}
}
