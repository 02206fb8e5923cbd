package distancesv2

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/geom"
)

// TestContactGridMatchesBrute compares the grid with the all-pairs loop on
// random clouds, including far outliers (brute fallback), non-finite points
// and distances exactly at the cutoff.
func TestContactGridMatchesBrute(t *testing.T) {
	type pair struct{ i, j int32 }
	tests := []struct {
		name string
		pts  func(r *rand.Rand, n int) []geom.Vec3
	}{
		{"dense", func(r *rand.Rand, n int) []geom.Vec3 {
			p := make([]geom.Vec3, n)
			for i := range p {
				p[i] = geom.Vec3{r.Float64() * 40, r.Float64() * 40, r.Float64() * 40}
			}
			return p
		}},
		{"lattice at cutoff", func(r *rand.Rand, n int) []geom.Vec3 {
			p := make([]geom.Vec3, n)
			for i := range p {
				p[i] = geom.Vec3{8 * float64(i%5), 8 * float64(i/5%5), 8 * float64(i/25)}
			}
			return p
		}},
		{"shell at cutoff", func(r *rand.Rand, n int) []geom.Vec3 {
			// pairs 8 Å apart in random directions: computed distances a
			// few ulps either side of the cutoff
			p := make([]geom.Vec3, n)
			for i := 0; i+1 < n; i += 2 {
				p[i] = geom.Vec3{r.Float64() * 30, r.Float64() * 30, r.Float64() * 30}
				u := geom.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
				l := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
				for k := range 3 {
					p[i+1][k] = p[i][k] + 8*u[k]/l
				}
			}
			return p
		}},
		{"outliers and NaN", func(r *rand.Rand, n int) []geom.Vec3 {
			p := make([]geom.Vec3, n)
			for i := range p {
				p[i] = geom.Vec3{r.Float64() * 30, r.Float64() * 30, r.Float64() * 30}
			}
			p[3] = geom.Vec3{1e12, -1e12, 5}
			p[7] = geom.Vec3{math.NaN(), 0, 0}
			p[9] = geom.Vec3{math.Inf(1), 0, 0}
			return p
		}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tt := range tests {
		for _, n := range []int{0, 1, 12, 300} {
			if tt.name == "outliers and NaN" && n < 12 {
				continue
			}
			pts := tt.pts(r, n)
			res := make([]int32, n)
			for i := range res {
				res[i] = int32(2 * i)
			}
			var got, want []pair
			var g, b contactGrid
			for _, ij := range g.find(pts, res, 8.0, 6) {
				got = append(got, pair{int32(ij >> 32), int32(uint32(ij))})
			}
			for _, ij := range b.brute(pts, res, 8.0, 6) {
				want = append(want, pair{int32(ij >> 32), int32(uint32(ij))})
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s n=%d: grid found %d pairs, brute force %d (or in another order)", tt.name, n, len(got), len(want))
			}
			for _, maxSep := range []int32{7, 12, 24} {
				var chain, near []pair
				for _, ij := range g.chain(pts, res, 8.0, 6, maxSep) {
					chain = append(chain, pair{int32(ij >> 32), int32(uint32(ij))})
				}
				for _, p := range want {
					if res[p.j]-res[p.i] < maxSep {
						near = append(near, p)
					}
				}
				if !slices.Equal(chain, near) {
					t.Errorf("%s n=%d: chain(maxSep %d) found %d pairs, brute force %d (or in another order)", tt.name, n, maxSep, len(chain), len(near))
				}
			}
			if tt.name == "dense" && n == 300 && len(want) == 0 {
				t.Errorf("dense cloud has no contacts: test data too sparse")
			}
		}
	}
}

// TestSqrtBound checks that sqrtBound(c) is the largest t with
// math.Sqrt(t) <= c.
func TestSqrtBound(t *testing.T) {
	for _, c := range []float64{8, 0.5, 3.7, 6.000000001, 1e-170, 1e-300, 1e200, math.MaxFloat64} {
		got := sqrtBound(c)
		if !(math.Sqrt(got) <= c) || math.Sqrt(math.Nextafter(got, math.Inf(1))) <= c {
			t.Errorf("sqrtBound(%g) = %g: sqrt %g, next sqrt %g", c, got, math.Sqrt(got), math.Sqrt(math.Nextafter(got, math.Inf(1))))
		}
	}
}

func TestSortRankedIsStableDescending(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 50, 3000} {
		ranks := make([]float64, n)
		for i := range ranks {
			ranks[i] = math.Round(r.NormFloat64()*4) / 4 // many ties
			switch i % 7 {
			case 0:
				ranks[i] = math.Copysign(0, -1)
			case 3: // equal in the top 32 bits, different below
				ranks[i] = 1 + float64(r.IntN(64))*0x1p-50
			case 5:
				ranks[i] = -2 - float64(r.IntN(64))*0x1p-49
			}
		}
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = rankKey(ranks[i])
		}
		got := sortRanked(keys, make([]uint64, n), make([]uint64, n))
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			switch {
			case -ranks[a] < -ranks[b]:
				return -1
			case -ranks[a] > -ranks[b]:
				return 1
			}
			return 0
		})
		for i := range want {
			if int32(uint32(got[i])) != want[i] {
				t.Fatalf("n=%d: position %d holds %d, want %d", n, i, uint32(got[i]), want[i])
			}
		}
	}
}
