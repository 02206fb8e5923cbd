//go:build cgo

package confind

import (
	"math"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestKernels: the C functions (NeRF, pruning, pair; for AVX2 and for any
// CPU) give the Go functions' survivors, permanent contacts, contacts,
// degrees and freedoms bit for bit, on every AFDB file of the corpus with
// the mini library (native-only; the first ten in the default mode too) and
// on the first ten with the synthetic
// production-size one (many more rotamers a position).
func TestKernels(t *testing.T) {
	dir := testcorpus.Dir(t)
	if !havePairAVX2 {
		t.Log("no AVX2 on this CPU: the AVX2 function is not compared")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "afdb", "*.cif"))
	sort.Strings(paths)
	if len(paths) < 10 {
		t.Fatalf("%d AFDB files in the corpus", len(paths))
	}
	defer func(k, l, m int) { nerfKernel, pairKernel, pruneKernel = k, l, m }(nerfKernel, pairKernel, pruneKernel)
	compare := func(lib *Library, paths []string, nativeOnly bool) {
		for _, path := range paths {
			st, err := mmcif.ReadFile(path)
			if err != nil {
				continue // the corpus's unreadable files
			}
			var res [3]*Result
			for k := range 3 {
				nerfKernel, pairKernel, pruneKernel = k, k, 0
				if k == 2 {
					pruneKernel = 2
				}
				if res[k], err = Compute(st, lib, nativeOnly); err != nil {
					break
				}
			}
			if err != nil {
				continue
			}
			for k := range 2 {
				got, want := res[k], res[2]
				for n, p := range got.Positions {
					w := want.Positions[n]
					if p.NPlaced != w.NPlaced || p.NSurvived != w.NSurvived || !slices.Equal(got.PermContacts[n], want.PermContacts[n]) {
						t.Fatalf("%s: kernel %d position %d: %d placed, %d survived, permanent contacts %v; Go %d, %d, %v",
							filepath.Base(path), k, n, p.NPlaced, p.NSurvived, got.PermContacts[n], w.NPlaced, w.NSurvived, want.PermContacts[n])
					}
				}
				if len(got.Contacts) != len(want.Contacts) {
					t.Fatalf("%s: kernel %d finds %d contacts, Go %d", filepath.Base(path), k, len(got.Contacts), len(want.Contacts))
				}
				for n, c := range got.Contacts {
					w := want.Contacts[n]
					if c.I != w.I || c.J != w.J || math.Float64bits(c.Degree) != math.Float64bits(w.Degree) {
						t.Fatalf("%s: kernel %d contact %d is %+v, Go %+v", filepath.Base(path), k, n, c, w)
					}
				}
				for n := range got.Freedom {
					if math.Float64bits(got.Freedom[n]) != math.Float64bits(want.Freedom[n]) {
						t.Fatalf("%s: kernel %d freedom %d is %v, Go %v", filepath.Base(path), k, n, got.Freedom[n], want.Freedom[n])
					}
				}
			}
		}
	}
	compare(miniLib(t), paths, true)
	compare(miniLib(t), paths[:10], false)
	compare(synthLib(t), paths[:10], true)
}
