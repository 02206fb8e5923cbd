package coordfront

import (
	"math"
	"math/big"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// exactSum is the correctly rounded (half to even) sum, as Python's fsum.
func exactSum(xs ...float64) float64 {
	s := new(big.Float).SetPrec(4096)
	for _, x := range xs {
		s.Add(s, new(big.Float).SetPrec(4096).SetFloat64(x))
	}
	f, _ := s.Float64()
	return f
}

// TestFsum: Fsum and Fsum3 are correctly rounded over the depth kernel's
// weights (t in [0, 1]) and over random and cancelling triples.
func TestFsum(t *testing.T) {
	r := pyrandom.New(3)
	var cases [][3]float64
	for i := range 200000 {
		tt := r.Random()
		if i%1000 == 0 {
			tt = float64(i/1000) / 200
		}
		var w [3]float64
		for k, c := range []float64{0, 0.5, 1} {
			w[k] = max(0.0, 1.0-3.0*math.Abs(tt-c)) + 0.05
		}
		cases = append(cases, w, [3]float64{r.Random(), r.Random() * 1e-17, -r.Random()},
			[3]float64{1, 0x1p-53, 0x1p-106}, [3]float64{1e16, 1, -1e16})
	}
	for _, c := range cases {
		want := exactSum(c[0], c[1], c[2])
		if got := Fsum(c[:]); got != want {
			t.Fatalf("Fsum(%v) = %v, want %v", c, got, want)
		}
		if got := Fsum3(c[0], c[1], c[2]); got != want {
			t.Fatalf("Fsum3(%v) = %v, want %v", c, got, want)
		}
	}
}
