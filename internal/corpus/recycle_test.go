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

// TestWriterRecycles writes row groups large enough to be recycled, with
// every freed buffer overwritten: a buffer read after it was freed (a row
// group's column reused while still being encoded) would show in the
// values read back.
func TestWriterRecycles(t *testing.T) {
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
	poisoned := encode(t, s, rows, acc, func(pw *corpus.Writer) {
		w = pw
		corpus.PoisonFreed(w)
		w.ExpectRows(int64(len(rows)))
	})
	if corpus.Reused(w) == 0 {
		t.Fatal("no buffer was recycled: the test checks nothing")
	}
	// grown by doubling, the file would be copied about once over; sized
	// after its first row group, only that row group is
	if c, copied := corpus.FileBuffer(w); c > len(poisoned)*5/4 || copied > len(poisoned)/3 {
		t.Errorf("file buffer of %d bytes, %d bytes copied growing it, for a %d-byte file of the expected rows", c, copied, len(poisoned))
	}
	for _, expect := range []int64{0, 3, int64(len(rows)) * 10} {
		data := encode(t, s, rows, acc, func(w *corpus.Writer) { w.ExpectRows(expect) })
		if !bytes.Equal(data, poisoned) {
			t.Fatalf("ExpectRows(%d) without poisoning wrote other bytes than with it", expect)
		}
	}
	p := filepath.Join(t.TempDir(), "o.parquet")
	if err := (localblob.Store{}).Create(context.Background(), p, poisoned); err != nil {
		t.Fatal(err)
	}
	got := readRows(t, p)
	if len(got) != len(rows) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
	}
	for i := range rows {
		if fmt.Sprint(got[i]) != fmt.Sprint(rows[i]) {
			t.Fatalf("row %d read back differs (document %d bytes, wrote %d)", i, len(fmt.Sprint(got[i][2])), len(rows[i][2].(string)))
		}
	}
}
