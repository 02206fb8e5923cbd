package manifest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// TestReadAheadFewRequests: reading one column of 3,000 row groups takes
// a few requests, not one per row group, with every value as written; a
// subset in any order, and chunks too large to merge (read directly), give
// the same values.
func TestReadAheadFewRequests(t *testing.T) {
	ctx := context.Background()
	const groups, per = 3000, 2
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}, {Name: "cif_content", Type: format.String}}
	rng := rand.New(rand.NewPCG(1, 2))
	var rows [][]any
	for i := range groups * per {
		text := fmt.Sprintf("data_%d\n", i)
		if i%1499 == 0 { // a chunk over aheadSpan, compressed
			b := make([]byte, 5<<20)
			for k := range b {
				b[k] = 'a' + byte(rng.IntN(26))
			}
			text += string(b)
		}
		rows = append(rows, []any{fmt.Sprintf("E%06d", i), fmt.Sprintf("gs://b/%d.cif", i), text})
	}
	data, err := Encode(cols, rows, per)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "m.parquet")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	reads := &atomic.Int64{}
	store := testStore{reads: reads}
	f, err := Open(ctx, store, p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	footer := reads.Load()
	next := 0
	err = f.ReadShard(ctx, nil, []string{"entry_id"}, func(r *Rows) error {
		for i, v := range r.Values {
			if want := fmt.Sprintf("E%06d", r.First+int64(i)); v[0] != want || int(r.First)+i != next {
				return fmt.Errorf("row %d: %v, want %s", r.First+int64(i), v[0], want)
			}
			next++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if next != groups*per {
		t.Fatalf("read %d rows, want %d", next, groups*per)
	}
	if n := reads.Load() - footer; n > 60 {
		t.Errorf("%d requests to read one column of %d row groups, want a few (read ahead)", n, groups)
	} else {
		t.Logf("%d requests for one column of %d row groups (footer: %d)", n, groups, footer)
	}
	// A subset, out of order, all columns: the large chunks are read
	// directly, the rest ahead; every value as written.
	subset := []int{2999, 0, 749, 750, 1500, 7, 1}
	got := 0
	err = f.ReadShard(ctx, subset, []string{"cif_content", "entry_id", "gcs_uri"}, func(r *Rows) error {
		rg := subset[got]
		got++
		if r.First != int64(rg*per) || len(r.Values) != per {
			return fmt.Errorf("batch %d: first row %d (%d rows), want row group %d", got, r.First, len(r.Values), rg)
		}
		for i, v := range r.Values {
			want := rows[rg*per+i]
			if v[0] != want[2] || v[1] != want[0] || v[2] != want[1] {
				return fmt.Errorf("row %d differs", rg*per+i)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != len(subset) {
		t.Fatalf("%d row groups read, want %d", got, len(subset))
	}
}
