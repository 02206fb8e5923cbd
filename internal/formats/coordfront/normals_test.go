package coordfront

import (
	"math"
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
