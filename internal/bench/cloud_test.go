package bench

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
)

// TestCloudSmall runs `bench cloud` with a small N (CI's size; the real
// figures come from running it by hand with --shards 1000 or 12005): every
// shard done, no row lost or duplicated, or Cloud returns an error.
func TestCloudSmall(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	err := Cloud(context.Background(), []string{"--shards", "4", "--rows", "3", "--source", root})
	if errors.Is(err, emulators.ErrNotInstalled) && !emulators.InCI() {
		t.Skipf("SKIP (loud): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}
