//go:build cgo

package confind

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestNerfRows: the C functions (for AVX2, four rows at a time, and for any
// CPU) place every atom bit for bit as nerfRowsGo, with and without a given
// unit b-a, constant and per-row coefficients, every row count's tail.
func TestNerfRows(t *testing.T) {
	if !haveAVX2 {
		t.Log("no AVX2 on this CPU: the AVX2 function is not compared")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	defer func(k int) { nerfKernel = k }(nerfKernel)
	for trial := range 3000 {
		n := 1 + trial%13
		rows := 1 + rng.IntN(40)
		stride := 4 * (1 + rng.IntN(3))
		if trial%5 == 0 {
			stride = 0
		}
		coef := make([]float64, rows*max(stride, 4)+4)
		for i := range coef {
			coef[i] = rng.NormFloat64() * 2
		}
		idx := make([]int32, n)
		for r := range idx {
			idx[r] = int32(rng.IntN(rows))
		}
		coords := func() []float64 {
			v := make([]float64, 3*n)
			for i := range v {
				v[i] = rng.NormFloat64() * 30
			}
			return v
		}
		a, b, c := coords(), coords(), coords()
		var ab []float64
		if trial%2 == 0 {
			ab = coords()
			for r := 0; r < n; r++ {
				u := unit(vec{ab[r], ab[n+r], ab[2*n+r]})
				ab[r], ab[n+r], ab[2*n+r] = u[0], u[1], u[2]
			}
		}
		var outs, bcs [3][]float64
		for kern := range 3 {
			nerfKernel = kern
			outs[kern], bcs[kern] = make([]float64, 3*n), make([]float64, 3*n)
			nerfRows(idx, coef, stride, a, b, c, ab, outs[kern], bcs[kern])
		}
		for kern := range 2 {
			for i := range outs[2] {
				if math.Float64bits(outs[kern][i]) != math.Float64bits(outs[2][i]) || math.Float64bits(bcs[kern][i]) != math.Float64bits(bcs[2][i]) {
					t.Fatalf("trial %d (n %d, ab %v): kernel %d gives %v, %v at %d; Go gives %v, %v",
						trial, n, ab != nil, kern, outs[kern][i], bcs[kern][i], i, outs[2][i], bcs[2][i])
				}
			}
		}
	}
}

// TestGoldenKernels runs the mini golden file with the C functions for any
// CPU and with the Go ones (the other tests use the ones for this CPU).
func TestGoldenKernels(t *testing.T) {
	dir := testcorpus.Dir(t)
	lib := miniLib(t)
	defer func(k, l, m int) { nerfKernel, pairKernel, pruneKernel = k, l, m }(nerfKernel, pairKernel, pruneKernel)
	for _, kern := range []int{1, 2} {
		nerfKernel, pairKernel, pruneKernel = kern, kern, kern
		for _, g := range readGolden(t, filepath.Join(dir, "golden", "confind-mini.jsonl")) {
			t.Run(g.File, func(t *testing.T) { runGolden(t, dir, g, lib) })
		}
	}
}
