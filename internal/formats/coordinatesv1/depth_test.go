package coordinatesv1

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// TestSampleDepth3: the written-out kernel for max_depth 3 picks what the
// general one picks, from the same draw, over the whole budget fraction.
func TestSampleDepth3(t *testing.T) {
	cfg := DefaultConfig()
	for seed := range uint64(20) {
		a, b := pyrandom.New(seed), pyrandom.New(seed)
		f := &coordfront.Front{Rand: a}
		for i := range 5000 {
			tt := float64(i) / 5000
			if g, w := depth3(b.Random(), tt, cfg.DepthKernelEpsilon), sampleDepth(f, tt, cfg); g != w {
				t.Fatalf("seed %d t=%v: depth3 = %d, sampleDepth = %d", seed, tt, g, w)
			}
		}
	}
}

// TestKernel3: kernel3.sample decides as depth3 for every budget fraction
// of many budgets and epsilons, for random draws and for draws placed
// within a few ulps of the kernel's boundaries (where only the exact
// fallback can decide), and its fast path decides the random ones.
func TestKernel3(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fast, near := 0, 0
	for _, eps := range []float64{0.05, 0, 1e-300, 0.3, 2.5, 1e6, -0.01} {
		for range 40 {
			budget := 1 + rng.IntN(40000)
			k := newKernel3(budget, eps)
			for range 400 {
				used := rng.IntN(budget + 1)
				tt := float64(used) / float64(budget)
				w0 := max(0.0, 1.0-3.0*math.Abs(tt-0.0)) + eps
				w1 := max(0.0, 1.0-3.0*math.Abs(tt-0.5)) + eps
				w2 := max(0.0, 1.0-3.0*math.Abs(tt-1.0)) + eps
				total := coordfront.Fsum3(w0, w1, w2)
				us := []float64{rng.Float64()}
				// draws whose product lands at or next to a boundary
				for _, c := range []float64{w0, w0 + w1} {
					u := c / total
					for range 3 {
						us = append(us, u)
						u = math.Nextafter(u, 2)
					}
					u = c / total
					for range 3 {
						u = math.Nextafter(u, -1)
						us = append(us, u)
					}
				}
				for i, u := range us {
					if !(u >= 0 && u < 1) {
						continue
					}
					if g, w := k.sample(u, used), depth3(u, tt, eps); g != w {
						t.Fatalf("eps %v budget %d used %d u %v: sample %d, depth3 %d", eps, budget, used, u, g, w)
					}
					if i == 0 {
						x := u * (w0 + w1 + w2)
						if math.Abs(x-w0) > k.margin && math.Abs(x-(w0+w1)) > k.margin {
							fast++
						}
					} else {
						near++
					}
				}
			}
		}
	}
	if n := 7 * 40 * 400; fast < n*99/100 {
		t.Errorf("the fast path decided %d of %d random draws", fast, n)
	}
	t.Logf("%d random draws decided fast, %d boundary draws checked", fast, near)
}
