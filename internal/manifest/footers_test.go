package manifest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// testStore opens local files as objects at a generation (when gen is
// not 0), as GCS objects are, counting their ReadAt calls in reads (when
// set): on object storage each is a request.
type testStore struct {
	localblob.Store
	gen   int64
	reads *atomic.Int64
}

func (s testStore) Open(ctx context.Context, uri string) (blob.Object, error) {
	o, err := s.Store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	return testObject{o, s}, nil
}

type testObject struct {
	blob.Object
	s testStore
}

func (o testObject) Generation() int64 { return o.s.gen }

func (o testObject) ReadAt(p []byte, off int64) (int, error) {
	if o.s.reads != nil {
		o.s.reads.Add(1)
	}
	return o.Object.ReadAt(p, off)
}

// manyRowGroups writes a manifest of groups row groups of 2 rows.
func manyRowGroups(t testing.TB, groups int) string {
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}
	var rows [][]any
	for i := range groups * 2 {
		rows = append(rows, []any{fmt.Sprintf("E%06d", i), fmt.Sprintf("gs://b/%d.cif", i)})
	}
	data, err := Encode(cols, rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "m.parquet")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFooterParsedOncePerGeneration: Opens of one generation, concurrent
// or not, parse its footer once, and each reads its own row groups right;
// another generation is parsed again; a local file once per modification
// time; an object with neither every time.
func TestFooterParsedOncePerGeneration(t *testing.T) {
	ctx := context.Background()
	p := manyRowGroups(t, 600)
	parses := func() int {
		footers.mu.Lock()
		defer footers.mu.Unlock()
		return footers.parses
	}
	read := func(store blob.Store, rg int) error {
		f, err := Open(ctx, store, p)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.ReadShard(ctx, []int{rg}, []string{"entry_id"}, func(r *Rows) error {
			if want := fmt.Sprintf("E%06d", 2*rg); r.Values[0][0] != want || r.First != int64(2*rg) || r.Total != 2 {
				return fmt.Errorf("row group %d: first row %d = %v, want row %d = %s", rg, r.First, r.Values[0][0], 2*rg, want)
			}
			return nil
		})
	}
	before := parses()
	store := testStore{gen: time.Now().UnixNano()}
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- read(store, i*18)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := read(store, 599); err != nil {
		t.Fatal(err)
	}
	if n := parses() - before; n != 1 {
		t.Errorf("33 opens of one generation parsed the footer %d times, want 1", n)
	}
	if err := read(testStore{gen: store.gen + 1}, 5); err != nil {
		t.Fatal(err)
	}
	if n := parses() - before; n != 2 {
		t.Errorf("a second generation: %d parses in all, want 2", n)
	}
	// A local file is kept by its modification time and size: a rewrite
	// is parsed again; an object with neither is never kept (parsed by
	// each Open, outside the cache).
	for i, step := range []struct {
		store  blob.Store
		touch  bool
		parses int
	}{{localblob.Store{}, false, 3}, {localblob.Store{}, false, 3}, {localblob.Store{}, true, 4}, {localblob.Store{}, false, 4},
		{testStore{}, false, 4}, {testStore{}, false, 4}} {
		if step.touch {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(p, later, later); err != nil {
				t.Fatal(err)
			}
		}
		if err := read(step.store, 10+i); err != nil {
			t.Fatal(err)
		}
		if n := parses() - before; n != step.parses {
			t.Errorf("step %d: %d parses in all, want %d", i, n, step.parses)
		}
	}
}

// BenchmarkOpenShard is a shard's open of a 12,005-row-group manifest and
// read of its row group: the footer parsed each time (an object with no
// generation nor modification time) and kept (a generation; a local file).
func BenchmarkOpenShard(b *testing.B) {
	ctx := context.Background()
	p := manyRowGroups(b, 12005)
	for _, bc := range []struct {
		name  string
		store blob.Store
	}{{"parsed", testStore{}}, {"kept", testStore{gen: 1}}, {"local", localblob.Store{}}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f, err := Open(ctx, bc.store, p)
				if err != nil {
					b.Fatal(err)
				}
				if err := f.ReadShard(ctx, []int{i % 12005}, []string{"entry_id", "gcs_uri"}, func(*Rows) error { return nil }); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
