package pyrandom

import (
	"math"
	"testing"
)

// TestGaussApproxErr compares the approximate pairs with the exact ones
// over many random draws and the edge cases of both inputs (u at 1 and at
// its smallest, x at 0, near every multiple of pi/4 and just below 2pi),
// and reports the largest difference seen.
func TestGaussApproxErr(t *testing.T) {
	var xs, us []float64
	// edges: u = 1 - random() is in [2^-53, 1]; x = random()*2pi in [0, 2pi)
	uEdge := []float64{1, math.Nextafter(1, 0), 0.5, math.Nextafter(0.5, 1), math.Sqrt2 / 2, math.Nextafter(math.Sqrt2/2, 0),
		math.Nextafter(math.Sqrt2/2, 1), 0x1p-53, 0x1p-52, 3 * 0x1p-53, 1e-10}
	xEdge := []float64{0, 0x1p-53 * 2 * math.Pi, math.Nextafter(2*math.Pi, 0), (1 - 0x1p-53) * (2 * math.Pi)}
	for k := 1; k < 8; k++ {
		c := float64(k) * math.Pi / 4
		xEdge = append(xEdge, c, math.Nextafter(c, 0), math.Nextafter(c, 7))
		for d := 1; d <= 64; d++ {
			xEdge = append(xEdge, c+float64(d)*1e-9, c-float64(d)*1e-9)
		}
	}
	for _, x := range xEdge {
		for _, u := range uEdge {
			xs, us = append(xs, x), append(us, u)
		}
	}
	n := 20_000_000
	if testing.Short() {
		n = 1_000_000
	}
	r := New(12345)
	for len(xs) < n {
		xs = append(xs, r.Random()*(2*math.Pi))
		us = append(us, 1.0-r.Random())
	}
	exact := make([]float64, 2*len(xs))
	approx := make([]float64, 2*len(xs))
	gaussPairs(xs, us, exact)
	gaussPairsApprox(xs, us, approx)
	worst, at := 0.0, 0
	for i := range exact {
		if d := math.Abs(approx[i] - exact[i]); d > worst || math.IsNaN(d) {
			worst, at = d, i
			if math.IsNaN(d) {
				break
			}
		}
	}
	t.Logf("%d pairs: max |approx - exact| = %.3g (x=%v u=%v, %s)", len(xs), worst, xs[at/2], us[at/2], [2]string{"cos", "sin"}[at%2])
	// the bound claims 10x the analytic estimate; measuring more than a
	// tenth of it means the argument in GaussApproxErr's comment is wrong
	if !(worst <= GaussApproxErr/10) {
		t.Errorf("max |approx - exact| = %g at pair %d, want <= GaussApproxErr/10 = %g", worst, at/2, GaussApproxErr/10)
	}
}

// TestFillGaussApprox checks that FillGaussApprox draws exactly as
// FillGauss (same stream afterwards, same exact cached value), that its
// values are within GaussApproxBound, and that Exact gives FillGauss's
// values bit for bit, for fills of every parity after a cached value or not.
func TestFillGaussApprox(t *testing.T) {
	var d GaussDraws
	for seed := range uint64(40) {
		for _, sizes := range [][]int{{0}, {1}, {2}, {7}, {8, 3}, {1, 1, 1}, {5, 0, 6}, {1000, 333}} {
			re, ra := New(seed), New(seed)
			for _, mu := range []float64{2, 0, -3.5} {
				sigma := 1 + float64(seed%3)
				for _, sz := range sizes {
					want := make([]float64, sz)
					got := make([]float64, sz)
					re.FillGauss(want, mu, sigma)
					ra.FillGaussApprox(got, mu, sigma, &d)
					bound := GaussApproxBound(mu, sigma)
					for i := range want {
						if diff := math.Abs(got[i] - want[i]); !(diff <= bound) {
							t.Fatalf("seed %d sizes %v: value %d = %v, exact %v: differ by %g > %g", seed, sizes, i, got[i], want[i], diff, bound)
						}
						if e := d.Exact(i); math.Float64bits(e) != math.Float64bits(want[i]) {
							t.Fatalf("seed %d sizes %v: Exact(%d) = %v, want %v", seed, sizes, i, e, want[i])
						}
					}
				}
				// the same stream and the same cached value afterwards
				if a, b := re.Gauss(0, 1), ra.Gauss(0, 1); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("seed %d sizes %v: next gauss %v, want %v", seed, sizes, b, a)
				}
			}
		}
	}
}

func TestGaussApproxBound(t *testing.T) {
	for _, c := range []struct{ mu, sigma float64 }{{2, 1}, {0, 1}, {0, 1e-12}, {1e6, 3}} {
		if b := GaussApproxBound(c.mu, c.sigma); !(b > 0 && b < 1e-9*(1+math.Abs(c.mu)+math.Abs(c.sigma))) {
			t.Errorf("GaussApproxBound(%g, %g) = %g, want small and positive", c.mu, c.sigma, b)
		}
	}
	for _, c := range []struct{ mu, sigma float64 }{{math.NaN(), 1}, {0, math.Inf(1)}, {math.Inf(-1), 1}} {
		if b := GaussApproxBound(c.mu, c.sigma); b <= 1 {
			t.Errorf("GaussApproxBound(%g, %g) = %g, want +Inf or NaN", c.mu, c.sigma, b)
		}
	}
}

// BenchmarkGaussPairs times the exact and the approximate pairs, per pair.
func BenchmarkGaussPairs(b *testing.B) {
	const n = 650 // about one document's distance ranks
	r := New(1)
	xs, us, zs := make([]float64, n), make([]float64, n), make([]float64, 2*n)
	for i := range xs {
		xs[i], us[i] = r.Random()*(2*math.Pi), 1-r.Random()
	}
	for _, c := range []struct {
		name string
		fn   func(x, u, z []float64)
	}{{"exact", gaussPairs}, {"approx", gaussPairsApprox}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.fn(xs, us, zs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pair")
		})
	}
}
