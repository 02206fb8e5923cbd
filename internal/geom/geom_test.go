package geom

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestPairsMatchesBruteForce(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		box    float64
		cutoff float64
		keep   func(i, j int) bool
	}{
		{"small", 10, 10, 4, nil},
		{"medium dense", 500, 20, 8, nil},
		{"large sparse", 3000, 120, 8, nil},
		{"large with keep", 3000, 120, 8, func(i, j int) bool { return j-i >= 6 }},
		{"negative coords", 1000, -50, 5, nil},
		{"tiny cutoff", 1000, 10, 0.3, nil},
		{"sparse outliers", 300, 10, 2, nil},
		{"outlier beyond cell range", 300, 10, 2, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(tc.n)))
			pts := make([]Vec3, tc.n)
			for i := range pts {
				pts[i] = Vec3{r.Float64() * tc.box, r.Float64() * tc.box, r.Float64() * tc.box}
			}
			if tc.name == "sparse outliers" {
				// a few far points make the bounding box mostly empty
				pts[0] = Vec3{1e6, 0, 0}
				pts[1] = Vec3{1e6 + 1, 0, 0}
				pts[2] = Vec3{0, -1e6, 5e5}
			}
			if tc.name == "outlier beyond cell range" {
				pts[0] = Vec3{1e17, 0, 0}
				pts[1] = Vec3{1e17, 1, 0}
			}
			got := Pairs(pts, tc.cutoff, tc.keep)
			want := brute(pts, tc.cutoff, tc.keep)
			if len(want) == 0 {
				t.Fatalf("test has no pairs; make it denser")
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %d pairs, brute force %d", len(got), len(want))
			}
		})
	}
}

func TestPairsExactlyAtCutoff(t *testing.T) {
	// Points on a lattice of spacing exactly cutoff: neighbours at exactly
	// the cutoff distance must be included (inclusive comparison), in both
	// the brute-force and the cell-list paths.
	for _, n := range []int{4, 10} { // 4^3=64 brute, 10^3 cells
		var pts []Vec3
		const c = 2.0
		for x := 0; x < n; x++ {
			for y := 0; y < n; y++ {
				for z := 0; z < n; z++ {
					pts = append(pts, Vec3{float64(x) * c, float64(y) * c, float64(z) * c})
				}
			}
		}
		got := Pairs(pts, c, nil)
		wantN := 3 * n * n * (n - 1) // lattice edges
		if len(got) != wantN {
			t.Errorf("n=%d: got %d pairs at exactly the cutoff, want %d", n, len(got), wantN)
		}
		for _, p := range got {
			if p.D != c {
				t.Fatalf("pair %v: distance %v, want exactly %v", p, p.D, c)
			}
		}
		if strict := Pairs(pts, math.Nextafter(c, 0), nil); len(strict) != 0 {
			t.Errorf("n=%d: %d pairs just below cutoff, want 0", n, len(strict))
		}
	}
}

func TestPairsSortedAndOddInputs(t *testing.T) {
	pts := []Vec3{{0, 0, 0}, {math.NaN(), 0, 0}, {1, 0, 0}, {math.Inf(1), 0, 0}}
	for i := 0; i < 100; i++ {
		pts = append(pts, Vec3{float64(i%5) * 0.5, float64(i/5%5) * 0.5, float64(i/25) * 0.5})
	}
	got := Pairs(pts, 1, nil)
	for k := 1; k < len(got); k++ {
		a, b := got[k-1], got[k]
		if a.I > b.I || (a.I == b.I && a.J >= b.J) {
			t.Fatalf("not sorted at %d: %v then %v", k, a, b)
		}
	}
	for _, p := range got {
		if p.I == 1 || p.J == 1 || p.I == 3 || p.J == 3 {
			t.Fatalf("non-finite point paired: %v", p)
		}
	}
	if !reflect.DeepEqual(got, brute(pts, 1, nil)) {
		t.Fatalf("cell list disagrees with brute force with non-finite points")
	}
	if Pairs(pts, -1, nil) != nil || Pairs(pts, math.NaN(), nil) != nil || Pairs(nil, 5, nil) != nil {
		t.Fatalf("negative/NaN cutoff or empty input should give no pairs")
	}
}

func BenchmarkPairs10k(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 3))
	pts := make([]Vec3, 10000)
	// protein-like density: ~1 point per 10 Å^3 in a cube
	side := math.Cbrt(10 * 10000)
	for i := range pts {
		pts[i] = Vec3{r.Float64() * side, r.Float64() * side, r.Float64() * side}
	}
	b.ResetTimer()
	for b.Loop() {
		Pairs(pts, 8, nil)
	}
}

// TestPairsSquaredPrefilterExact: the squared-distance prefilter (within)
// keeps exactly the pairs Dist(a, b) <= cutoff keeps, for points placed a
// few ulps either side of the cutoff, at cutoffs from tiny squares to
// squares that overflow, through both the brute-force and cell paths.
func TestPairsSquaredPrefilterExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, cutoff := range []float64{1e-160, 1e-150, 1e-120, 1e-50, 0.3, 8, 8.0000001, 1e50, 1e150} {
		for _, n := range []int{40, 400} { // brute force, cells
			pts := make([]Vec3, 0, n)
			for len(pts) < n {
				a := Vec3{r.NormFloat64() * cutoff, r.NormFloat64() * cutoff, r.NormFloat64() * cutoff}
				u := Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
				norm := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
				d := cutoff * (1 + float64(r.IntN(9)-4)*0x1p-52)
				b := Vec3{a[0] + u[0]/norm*d, a[1] + u[1]/norm*d, a[2] + u[2]/norm*d}
				pts = append(pts, a, b)
			}
			var want []Pair
			for i := range pts {
				for j := i + 1; j < len(pts); j++ {
					if d := Dist(pts[i], pts[j]); d <= cutoff {
						want = append(want, Pair{I: i, J: j, D: d})
					}
				}
			}
			got := Pairs(pts, cutoff, nil)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("cutoff %g, %d points: %d pairs, Dist <= cutoff keeps %d", cutoff, n, len(got), len(want))
			}
			if len(want) == 0 {
				t.Fatalf("cutoff %g: no pairs: not a test of the cutoff", cutoff)
			}
			if len(want) == len(pts)*(len(pts)-1)/2 {
				t.Fatalf("cutoff %g: every pair kept: not a test of the cutoff", cutoff)
			}
		}
	}
}
