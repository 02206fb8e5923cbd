package corpus

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

func TestRecycler(t *testing.T) {
	r := newRecycler()
	a := r.Allocate(100 << 10)
	if len(a) != 100<<10 || uintptr(unsafe.Pointer(unsafe.SliceData(a)))%64 != 0 {
		t.Fatalf("Allocate(100 KiB): len %d, address %p", len(a), unsafe.SliceData(a))
	}
	for i := range a {
		a[i] = 7
	}
	r.Free(a)
	r.Free(a) // a second Free must not make two owners
	b := r.Allocate(101 << 10)
	if unsafe.SliceData(b) != unsafe.SliceData(a) {
		t.Fatal("a freed buffer of the same size class was not reused")
	}
	if bytes.IndexByte(b[:cap(b)], 7) >= 0 {
		t.Fatal("a reused buffer was not zeroed")
	}
	if c := r.Allocate(101 << 10); unsafe.SliceData(c) == unsafe.SliceData(b) {
		t.Fatal("a buffer freed twice was handed out twice")
	}
	foreign := make([]byte, sizeClass(100<<10))
	r.Free(foreign)
	if d := r.Allocate(100 << 10); unsafe.SliceData(d) == unsafe.SliceData(foreign) {
		t.Fatal("a buffer the recycler did not make was taken in")
	}
	small := r.Allocate(1000)
	r.Free(small)
	if e := r.Allocate(1000); unsafe.SliceData(e) == unsafe.SliceData(small) {
		t.Fatal("a small buffer was recycled")
	}
	// grown within its capacity, a buffer keeps its contents
	g := r.Allocate(70 << 10)
	g[0] = 1
	if g2 := r.Reallocate(cap(g), g); g2[0] != 1 || len(g2) != cap(g) {
		t.Fatal("Reallocate within the capacity lost the contents")
	}
	if g3 := r.Reallocate(4<<20, g); g3[0] != 1 || len(g3) != 4<<20 {
		t.Fatal("Reallocate to a larger class lost the contents")
	}
	for _, n := range []int{1, 15, 16, 17, 64 << 10, 100 << 10, 9 << 20} {
		c := sizeClass(n)
		if c < n || c > n+n/8+1 || sizeClass(c) != c {
			t.Errorf("sizeClass(%d) = %d", n, c)
		}
	}
}

// TestWriterRecycles writes row groups large enough to be recycled, with every freed buffer overwritten: a buffer read
// after it was freed (a row group's column reused while still being
// encoded) would show in the values read back.
func TestWriterRecycles(t *testing.T) {
	s := NewSchema([]format.Column{{Name: "scores", Type: format.Float64List}}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"<ca>", "<cb>", "<n>", "ALA", "GLY", "<dist>", "12.5", "<contact>", "\n"}
	var rows [][]any
	for i := range 12*RowGroupRows + 3 {
		var b strings.Builder
		for n := 2000 + rng.IntN(30<<10); b.Len() < n; {
			b.WriteString(words[rng.IntN(len(words))])
		}
		rows = append(rows, []any{fmt.Sprint("E", i), "file:///x", b.String(), fmt.Sprintf("%040d", i), []float64{float64(i), 0.5}})
	}
	acc := Accounting{RunID: "r", RowsIn: int64(len(rows)), DocsOut: int64(len(rows))}
	write := func(poison bool, expect int64) ([]byte, *Writer) {
		w, err := NewWriter(s)
		if err != nil {
			t.Fatal(err)
		}
		w.mem.poison = poison
		w.ExpectRows(expect)
		for _, r := range rows {
			if err := w.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		data, err := w.Finish(acc)
		if err != nil {
			t.Fatal(err)
		}
		return data, w
	}
	poisoned, w := write(true, int64(len(rows)))
	if w.mem.reused == 0 {
		t.Fatal("no buffer was recycled: the test checks nothing")
	}
	// grown by doubling, the file would be copied about once over; sized
	// after its first row group, only that row group is
	if got := cap(w.buf.b); got > len(poisoned)*5/4 || w.buf.copied > len(poisoned)/3 {
		t.Errorf("file buffer of %d bytes, %d bytes copied growing it, for a %d-byte file of the expected rows", got, w.buf.copied, len(poisoned))
	}
	for _, expect := range []int64{0, 3, int64(len(rows)) * 10} {
		if data, _ := write(false, expect); !bytes.Equal(data, poisoned) {
			t.Fatalf("ExpectRows(%d) without poisoning wrote other bytes than with it", expect)
		}
	}
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "o.parquet")
	if err := (localblob.Store{}).Create(ctx, p, poisoned); err != nil {
		t.Fatal(err)
	}
	var got [][]any
	if err := Read(ctx, localblob.Store{}, p, nil, func(r *manifest.Rows) error {
		got = append(got, r.Values...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
	}
	for i := range rows {
		if fmt.Sprint(got[i]) != fmt.Sprint(rows[i]) {
			t.Fatalf("row %d read back differs (document %d bytes, wrote %d)", i, len(fmt.Sprint(got[i][2])), len(rows[i][2].(string)))
		}
	}
}
