//go:build cgo

package confind

import (
	"math"
	"path/filepath"
	"sort"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestPairKernels: the C pair functions (for AVX2 and for any CPU) give
// pairGo's contacts, degrees and freedoms bit for bit, on every AFDB file of
// the corpus with the mini library and on the first ten with the synthetic
// production-size one (many more rotamers a position).
func TestPairKernels(t *testing.T) {
	dir := testcorpus.Dir(t)
	if !havePairAVX2 {
		t.Log("no AVX2 on this CPU: the AVX2 function is not compared")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "afdb", "*.cif"))
	sort.Strings(paths)
	if len(paths) < 10 {
		t.Fatalf("%d AFDB files in the corpus", len(paths))
	}
	defer func(k int) { pairKernel = k }(pairKernel)
	compare := func(lib *Library, paths []string) {
		for _, p := range paths {
			st, err := mmcif.ReadFile(p)
			if err != nil {
				continue // the corpus's unreadable files
			}
			var res [3]*Result
			for k := range 3 {
				pairKernel = k
				if res[k], err = Compute(st, lib, true); err != nil {
					break
				}
			}
			if err != nil {
				continue
			}
			for k := range 2 {
				got, want := res[k], res[2]
				if len(got.Contacts) != len(want.Contacts) {
					t.Fatalf("%s: kernel %d finds %d contacts, Go %d", filepath.Base(p), k, len(got.Contacts), len(want.Contacts))
				}
				for n, c := range got.Contacts {
					w := want.Contacts[n]
					if c.I != w.I || c.J != w.J || math.Float64bits(c.Degree) != math.Float64bits(w.Degree) {
						t.Fatalf("%s: kernel %d contact %d is %+v, Go %+v", filepath.Base(p), k, n, c, w)
					}
				}
				for n := range got.Freedom {
					if math.Float64bits(got.Freedom[n]) != math.Float64bits(want.Freedom[n]) {
						t.Fatalf("%s: kernel %d freedom %d is %v, Go %v", filepath.Base(p), k, n, got.Freedom[n], want.Freedom[n])
					}
				}
			}
		}
	}
	compare(miniLib(t), paths)
	compare(synthLib(t), paths[:10])
}
