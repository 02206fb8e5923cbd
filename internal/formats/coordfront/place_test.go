package coordfront

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// placeRef is place as it was first written (the min and max builtins,
// loops over the axes); TestPlaceMatchesRef holds place to it.
func (f *Front) placeRef(cfg Config) bool {
	m := len(f.Atoms.Coord)
	var sum [3]float64
	for _, c := range f.Atoms.Coord {
		sum[0] += c[0]
		sum[1] += c[1]
		sum[2] += c[2]
	}
	cen := [3]float64{sum[0] / float64(m), sum[1] / float64(m), sum[2] / float64(m)}
	var q [4]float64
	for i := range q {
		q[i] = f.Normals.Gauss(1.0)
	}
	norm := math.Sqrt(float64(float64(float64(q[0]*q[0])+float64(q[1]*q[1]))+float64(q[2]*q[2])) + float64(q[3]*q[3]))
	var R [3][3]float64
	if norm == 0 {
		R = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
		f.Quat = [4]float64{1, 0, 0, 0}
	} else {
		w, x, y, z := q[0]/norm, q[1]/norm, q[2]/norm, q[3]/norm
		f.Quat = [4]float64{w, x, y, z}
		p := func(a, b float64) float64 { return float64(a * b) }
		R = [3][3]float64{
			{1 - 2*(p(y, y)+p(z, z)), 2 * (p(x, y) - p(z, w)), 2 * (p(x, z) + p(y, w))},
			{2 * (p(x, y) + p(z, w)), 1 - 2*(p(x, x)+p(z, z)), 2 * (p(y, z) - p(x, w))},
			{2 * (p(x, z) - p(y, w)), 2 * (p(y, z) + p(x, w)), 1 - 2*(p(x, x)+p(y, y))},
		}
	}
	f.Placed = grow(f.Placed, m)
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, c := range f.Atoms.Coord {
		d0, d1, d2 := c[0]-cen[0], c[1]-cen[1], c[2]-cen[2]
		for j := range 3 {
			// OpenBLAS dgemm's order on the reference machine (notes §6)
			v := math.FMA(d2, R[j][2], math.FMA(d1, R[j][1], float64(d0*R[j][0])))
			f.Placed[i][j] = v
			lo[j] = min(lo[j], v)
			hi[j] = max(hi[j], v)
		}
	}
	limit := cfg.CubeSize - 2.0*cfg.CubeMargin
	var span [3]float64
	for j := range 3 {
		span[j] = hi[j] - lo[j]
	}
	if max(span[0], span[1], span[2]) > limit {
		return false
	}
	for j := range 3 {
		slack := limit - span[j]
		target := cfg.CubeMargin + f.Rand.Uniform(0.0, slack)
		f.Trans[j] = target - lo[j]
	}
	for i := range f.Placed {
		for j := range 3 {
			f.Placed[i][j] += f.Trans[j]
		}
	}
	return true
}

// TestPlaceMatchesRef: place gives placeRef's placed coordinates,
// rotation, translation and outcome bit for bit, for random structures
// with zeros, negative zeros, NaNs and infinities among the coordinates:
// with the C kernel (where it is built in) and with rotateGo.
func TestPlaceMatchesRef(t *testing.T) {
	for _, c := range []bool{true, false} {
		if c && !rotateCOK {
			t.Log("SKIP: the C kernel (cgo on amd64 with FMA) is not here; rotateGo only")
			continue
		}
		useRotateC = c
		testPlaceMatchesRef(t)
	}
	useRotateC = true
}

func testPlaceMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	cfg := DefaultConfig(8192)
	bits := func(x float64) uint64 {
		if x != x {
			return 1 // any NaN
		}
		return math.Float64bits(x)
	}
	for i := range 3000 {
		m := 1 + rng.IntN(60)
		coords := make([][3]float64, m)
		for k := range coords {
			for j := range 3 {
				switch rng.IntN(40) {
				case 0:
					coords[k][j] = math.NaN()
				case 1:
					coords[k][j] = math.Inf(1 - 2*rng.IntN(2))
				case 2:
					coords[k][j] = math.Copysign(0, -1)
				case 3:
					coords[k][j] = 0
				default:
					coords[k][j] = (rng.Float64() - 0.5) * 100 * float64(1+rng.IntN(20))
				}
			}
			if i%2 == 0 { // half the cases without special values
				for j := range 3 {
					if c := coords[k][j]; c != c || math.IsInf(c, 0) {
						coords[k][j] = 1.5
					}
				}
			}
		}
		seed := uint64(i)
		a := &Front{Rand: pyrandom.New(seed), Atoms: Atoms{Coord: coords}}
		a.Normals = Normals{R: a.Rand}
		b := &Front{Rand: pyrandom.New(seed), Atoms: Atoms{Coord: coords}}
		b.Normals = Normals{R: b.Rand}
		okA, okB := a.place(cfg), b.placeRef(cfg)
		if okA != okB || a.Quat != b.Quat || a.Rand.Random() != b.Rand.Random() {
			t.Fatalf("C kernel %v, case %d: place %v quat %v, placeRef %v quat %v", useRotateC, i, okA, a.Quat, okB, b.Quat)
		}
		if !okA {
			continue
		}
		for j := range 3 {
			if bits(a.Trans[j]) != bits(b.Trans[j]) {
				t.Fatalf("C kernel %v, case %d: trans %v, placeRef %v", useRotateC, i, a.Trans, b.Trans)
			}
		}
		for k := range coords {
			for j := range 3 {
				if bits(a.Placed[k][j]) != bits(b.Placed[k][j]) {
					t.Fatalf("C kernel %v, case %d atom %d: placed %v, placeRef %v", useRotateC, i, k, a.Placed[k], b.Placed[k])
				}
			}
		}
	}
}

// BenchmarkPlace compares place with placeRef on 4,000 atoms (run both,
// alternating, for an A/B in one process).
func BenchmarkPlace(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	coords := make([][3]float64, 4000)
	for k := range coords {
		coords[k] = [3]float64{rng.Float64() * 60, rng.Float64() * 60, rng.Float64() * 60}
	}
	cfg := DefaultConfig(8192)
	for _, ref := range []bool{false, true} {
		name := "place"
		if ref {
			name = "placeRef"
		}
		b.Run(name, func(b *testing.B) {
			f := &Front{Rand: pyrandom.New(1), Atoms: Atoms{Coord: coords}}
			f.Normals = Normals{R: f.Rand}
			for b.Loop() {
				if ref {
					f.placeRef(cfg)
				} else {
					f.place(cfg)
				}
			}
		})
	}
}
