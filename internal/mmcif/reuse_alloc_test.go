//go:build !race

// The race detector's sync.Pool drops pooled builders at random, so the
// allocation count is only checked without it.

package mmcif

import (
	"runtime"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// TestReadIntoAllocs reports what a steady-state ReadInto allocates, one
// reused structure over the AFDB files, and fails when it allocates more
// than a few small objects per read (Read allocates the whole result).
func TestReadIntoAllocs(t *testing.T) {
	files := loadFiles(t, "afdb")
	var st structure.Structure
	readAll := func() {
		for _, f := range files {
			if err := ReadInto(&st, f.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	readAll()
	n := float64(len(files))
	allocs := testing.AllocsPerRun(5, readAll) / n
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	readAll()
	runtime.ReadMemStats(&m1)
	bytes := float64(m1.TotalAlloc-m0.TotalAlloc) / n
	freshAllocs := testing.AllocsPerRun(5, func() {
		for _, f := range files {
			if _, err := Read(f.data); err != nil {
				t.Fatal(err)
			}
		}
	}) / n
	t.Logf("steady-state ReadInto over %d AFDB files: %.2f allocations, %.0f bytes per read (Read: %.2f allocations)", len(files), allocs, bytes, freshAllocs)
	// The pooled builder can be dropped by a GC between reads; the bound
	// leaves room for that, far below Read's result arrays.
	if allocs > 4 || bytes > 4096 {
		t.Errorf("steady-state ReadInto allocates %.2f objects, %.0f bytes per read; want at most 4 objects, 4 KB", allocs, bytes)
	}
}
