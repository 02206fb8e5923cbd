package hf_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// A resolve answer without X-Linked-Size (a mirror or proxy that drops
// headers): the size comes from the tree listing, kept in the lock, and the
// outputs are those of a fetch with the header.
func TestFetchWithoutLinkedSize(t *testing.T) {
	ctx := context.Background()
	files := afdbFiles(t, 2, 20, 8, false, 0)
	src, err := hf.ParseSource("hf://datasets/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(noSize bool) string {
		srv := hubtest.New(hubtest.Options{Repo: repo, Files: files, NoLinkedSize: noSize})
		defer srv.Close()
		out := t.TempDir()
		res, err := hf.Fetch(ctx, testClient(srv, ""), hf.FetchOptions{Source: src, Out: out, Store: localblob.Store{}, Columns: hf.DefaultColumns, Concurrency: 2})
		if err != nil {
			t.Fatalf("Fetch (no X-Linked-Size: %v): %v", noSize, err)
		}
		if res.Fetched != 2 {
			t.Fatalf("Fetch (no X-Linked-Size: %v) fetched %d files, want 2", noSize, res.Fetched)
		}
		return out
	}
	with, without := fetch(false), fetch(true)
	for _, f := range files {
		a, errA := os.ReadFile(filepath.Join(with, f.Path))
		b, errB := os.ReadFile(filepath.Join(without, f.Path))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("%s differs without X-Linked-Size (%v, %v)", f.Path, errA, errB)
		}
	}
}
