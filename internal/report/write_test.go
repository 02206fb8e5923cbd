package report

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// TestWriteStore checks the create-only report writes: a rerun is a no-op,
// an interrupted write is completed, and a different report is refused
// before anything is written.
func TestWriteStore(t *testing.T) {
	ctx := context.Background()
	store := localblob.Store{}
	build := func(seed uint64) (string, *Report) {
		dir := t.TempDir()
		shards, err := WriteSynthetic(ctx, store, dir, SynthConfig{Shards: 3, RowsPerShard: 3, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Build(ctx, store, dir, Options{Shards: shards})
		if err != nil {
			t.Fatal(err)
		}
		return dir, rep
	}
	dir, rep := build(1)
	_, other := build(2)
	if err := rep.WriteStore(ctx, store, dir); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStore(ctx, store, dir); err != nil {
		t.Errorf("second WriteStore of the same report: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "report", "index.html")); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStore(ctx, store, dir); err != nil {
		t.Errorf("WriteStore after an interrupted write: %v", err)
	}
	if err := other.WriteStore(ctx, store, dir); !errors.Is(err, derrors.ErrExists) {
		t.Errorf("WriteStore of another report over it = %v, want ErrExists", err)
	}
	for name, want := range rep.Files {
		got, err := os.ReadFile(filepath.Join(dir, "report", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("report/%s changed or missing after the refused write (%v)", name, err)
		}
	}
}
