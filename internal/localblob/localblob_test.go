package localblob

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// The contract of blob.Store (reads, ErrNotFound, ranges, create-only
// writes, listing) is tested by the conformance suite (conformance_test.go);
// these are the local store's own behaviours.

// TestCreateLeavesNoTemps: racing creators leave no temporary file behind,
// winner or loser.
func TestCreateLeavesNoTemps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var s Store
	p := filepath.Join(dir, "a", "x.bin")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Create(ctx, "file://"+p, []byte{byte(i)}); err != nil && !errors.Is(err, derrors.ErrExists) {
				t.Errorf("Create = %v, want nil or ErrExists", err)
			}
		}()
	}
	wg.Wait()
	if temps, _ := filepath.Glob(filepath.Join(dir, "a", TempPrefix+"*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// TestTempsAndHosts: a stale temporary file of a killed writer is not
// listed and RemoveTemps deletes it; a file:// URI naming another host is
// refused.
func TestTempsAndHosts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var s Store
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, TempPrefix+"f.txt-1"), []byte("part"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadAll(ctx, "file://otherhost"+p); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("ReadAll(file://otherhost/...) = %v, want a permanent error", err)
	}
	if got, err := s.ReadAll(ctx, "file://localhost"+p); err != nil || string(got) != "0123456789" {
		t.Errorf("ReadAll(file://localhost/...) = %q, %v", got, err)
	}
	list, err := s.List(ctx, filepath.Join(dir, "*"))
	if err != nil || len(list) != 1 || list[0] != p {
		t.Errorf("List = %v, %v; want [%s] (no temporary file)", list, err, p)
	}
	if n, err := RemoveTemps(dir); n != 1 || err != nil {
		t.Errorf("RemoveTemps = %d, %v; want 1", n, err)
	}
}
