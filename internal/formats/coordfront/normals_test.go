package coordfront

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// TestNormalsIsGauss: Normals, interleaved with other draws and sigma
// changes, gives Rand.Gauss's values (checked against CPython in
// pyrandom) bit for bit, and Approx stays within GaussApproxErr of Exact.
func TestNormalsIsGauss(t *testing.T) {
	worst := 0.0
	for seed := range uint64(50) {
		a, b := pyrandom.New(seed), pyrandom.New(seed)
		n := Normals{R: b}
		var cache ApproxCache
		for i := range 5000 {
			sigma := []float64{1, 25, 2.5, 0.25, 2, 1.0 / 9}[i%6]
			if i%7 == 3 { // other draws between Gaussians leave the cache alone
				if x, y := a.Random(), b.Random(); x != y {
					t.Fatalf("seed %d draw %d: random %v vs %v", seed, i, x, y)
				}
			}
			want := a.Gauss(0, sigma)
			d := n.Next()
			got := 0.0 + d.Exact()*sigma
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("seed %d draw %d: Normals %v, Gauss %v", seed, i, got, want)
			}
			worst = max(worst, math.Abs(d.Approx()-d.Exact()), math.Abs(cache.Approx(d)-d.Exact()))
		}
	}
	if worst > pyrandom.GaussApproxErr {
		t.Errorf("Approx is %g from Exact, more than GaussApproxErr %g", worst, pyrandom.GaussApproxErr)
	}
	t.Logf("largest |Approx - Exact| over 250000 values: %g", worst)
}

// TestVocabIndex: the switch lists exactly the vocabulary's atom names.
func TestVocabIndex(t *testing.T) {
	if len(vocabList) != len(vocabAtoms) {
		t.Fatalf("vocabList has %d names, vocabAtoms %d", len(vocabList), len(vocabAtoms))
	}
	for n := range vocabAtoms {
		if i := vocabIndex(n); i < 0 || vocabList[i] != n || vocabSp[i] != AtomSp(n) {
			t.Errorf("vocabIndex(%q) = %d", n, i)
		}
	}
	for _, n := range []string{"", "H", "CA ", "OT1", "SE", "HA", "C1'", "P", "OXT1"} {
		if vocabIndex(n) >= 0 {
			t.Errorf("vocabIndex(%q) >= 0", n)
		}
	}
}

// TestNormalsSkip: Skip(k) leaves the stream where k calls of Next (and
// Rand.Gauss, checked against CPython) leave it, with or without a cached
// value, across block boundaries, and with other draws between.
func TestNormalsSkip(t *testing.T) {
	for seed := range uint64(20) {
		a, b := pyrandom.New(seed), pyrandom.New(seed)
		n := Normals{R: b}
		for i := range 3000 {
			k := (i*7 + int(seed)) % 40
			if i%11 == 0 {
				k = 300 + i%5 // more than a block's worth of outputs
			}
			for range k {
				a.Gauss(0, 1)
			}
			n.Skip(k)
			if i%5 == 2 {
				if x, y := a.Random(), b.Random(); x != y {
					t.Fatalf("seed %d step %d (skip %d): random %v vs %v", seed, i, k, x, y)
				}
			}
			want := a.Gauss(0, 1)
			if got := n.Next().Exact(); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("seed %d step %d (skip %d): Normals %v, Gauss %v", seed, i, k, got, want)
			}
		}
	}
}

// TestClampRound: ClampRoundSafe and ClampRound give what RoundSafe and
// math.RoundToEven give after the builtins' clamp, for the formats'
// ranges (hi*scale = 9, 99, 999, 9999), at and near every kind of edge:
// below 0, -0, above hi, half-integers and their neighbours, NaN.
func TestClampRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type rng2 struct{ hi, scale float64 }
	for _, c := range []rng2{{999.9, 10}, {9999, 1}, {9990, 0.1}, {99900, 0.01}, {999.9, 10}} {
		vs := []float64{0, math.Copysign(0, -1), -1e-300, -5, c.hi, math.Nextafter(c.hi, 2*c.hi), 2 * c.hi, math.NaN()}
		for range 20000 {
			v := (rng.Float64()*1.2 - 0.1) * c.hi
			vs = append(vs, v)
			h := (math.Floor(v*c.scale) + 0.5) / c.scale // near a half-integer after scaling
			vs = append(vs, h, math.Nextafter(h, 0), math.Nextafter(h, 2*c.hi))
		}
		for _, v := range vs {
			for _, tol := range []float64{0, 1e-9, 0.3} {
				want, wok := RoundSafe(float64(min(c.hi, max(0.0, v))*c.scale), tol)
				got, gok := ClampRoundSafe(v, c.hi, c.scale, tol)
				if gok != wok || (wok && got != want) {
					t.Fatalf("hi %v scale %v v %v tol %v: ClampRoundSafe %v %v, RoundSafe %v %v", c.hi, c.scale, v, tol, got, gok, want, wok)
				}
			}
			if math.IsNaN(v) {
				continue
			}
			want := math.RoundToEven(float64(min(c.hi, max(0.0, v)) * c.scale))
			if got := ClampRound(v, c.hi, c.scale); got != want || int(got) != int(want) {
				t.Fatalf("hi %v scale %v v %v: ClampRound %v, RoundToEven %v", c.hi, c.scale, v, got, want)
			}
		}
	}
}

// TestNext3: Next3 and AppendPairs3 give three Next calls' draws (and the
// pairs among them that are not cached values), interleaved with single
// Next calls and other draws, from either cache state.
func TestNext3(t *testing.T) {
	for seed := range uint64(20) {
		a, b, c := pyrandom.New(seed), pyrandom.New(seed), pyrandom.New(seed)
		na, nb, nc := Normals{R: a}, Normals{R: b}, Normals{R: c}
		var xs, us []float64
		for i := range 3000 {
			switch i % 5 {
			case 1: // a single value changes the cache state
				if d := na.Next(); d != nb.Next() || d != nc.Next() {
					t.Fatalf("seed %d step %d: Next differs", seed, i)
				}
				continue
			case 3: // other draws leave the cache alone
				if x, y, z := a.Random(), b.Random(), c.Random(); x != y || x != z {
					t.Fatalf("seed %d step %d: random differs", seed, i)
				}
			}
			want := [3]Draw{na.Next(), na.Next(), na.Next()}
			if got := nb.Next3(); got != want {
				t.Fatalf("seed %d step %d: Next3 %v, three Next %v", seed, i, got, want)
			}
			xs, us = nc.AppendPairs3(xs[:0], us[:0])
			k := 0
			for _, d := range want {
				if !d.Second {
					if k >= len(xs) || xs[k] != d.X || us[k] != d.U {
						t.Fatalf("seed %d step %d: AppendPairs3 %v %v, three Next %v", seed, i, xs, us, want)
					}
					k++
				}
			}
			if k != len(xs) {
				t.Fatalf("seed %d step %d: AppendPairs3 %v %v, three Next %v", seed, i, xs, us, want)
			}
		}
	}
}

// BenchmarkNext3 compares Next3 with three Next calls.
func BenchmarkNext3(b *testing.B) {
	b.Run("Next3", func(b *testing.B) {
		n := Normals{R: pyrandom.New(1)}
		var s float64
		for b.Loop() {
			d := n.Next3()
			s += d[0].U + d[1].U + d[2].U
		}
		_ = s
	})
	b.Run("Next", func(b *testing.B) {
		n := Normals{R: pyrandom.New(1)}
		var s float64
		for b.Loop() {
			d := [3]Draw{n.Next(), n.Next(), n.Next()}
			s += d[0].U + d[1].U + d[2].U
		}
		_ = s
	})
}
