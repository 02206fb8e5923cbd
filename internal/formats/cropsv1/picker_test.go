package cropsv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// refPick is the reference's draw: every weight recomputed, numpy's
// sequential cumsum, searchsorted(side="right"), clamped.
func refPick(r *pyrandom.Rand, res []int32, k []float64) int {
	cdf := make([]float64, len(res))
	c := 0.0
	for i, rr := range res {
		c += 1.0 / (1.0 + k[rr])
		cdf[i] = c
	}
	x := r.Random() * c
	for i, v := range cdf {
		if v > x {
			return i
		}
	}
	return len(res) - 1
}

// TestPickerIsReference: the picker's draws equal the reference's over
// many residue layouts (zero-atom residues included) and thousands of
// draws each, and the fast path decides almost all of them.
func TestPickerIsReference(t *testing.T) {
	draws, slow := 0, 0
	for seed := range uint64(40) {
		g := pyrandom.New(1000 + seed)
		L := 2 + g.RandBelow(600)
		if pow2 := []int{2, 3, 4, 7, 8, 255, 256, 511, 512}; seed < uint64(len(pow2)) {
			L = pow2[seed] // the tree's padding at and around powers of two
		}
		var res []int32
		for r := range L {
			for range g.RandBelow(15) { // 0 to 14 atoms
				res = append(res, int32(r))
			}
		}
		if len(res) == 0 {
			continue
		}
		a, b := pyrandom.New(seed), pyrandom.New(seed)
		p := newPicker(res, L)
		if seed%4 == 3 {
			p.exactOK = false // the slow path alone
		}
		k := make([]float64, L)
		for range 3000 {
			got, want := p.draw(a.Random()), refPick(b, res, k)
			if got != want {
				t.Fatalf("seed %d, draw %d: picker %d, reference %d", seed, draws, got, want)
			}
			p.count(int(res[got]))
			k[res[got]]++
			draws++
		}
		slow += p.slow
	}
	t.Logf("%d draws, %d on the slow path", draws, slow)
	if slow > draws/3 {
		t.Errorf("%d of %d draws took the slow path", slow, draws)
	}
}

// TestPickKernel: the C kernel's picks (drawAll) equal the reference's
// over the layouts of TestPickerIsReference, with the guess as it is,
// with its total skewed (most guesses near a boundary are then wrong, and
// its check must send them to the slow path), and with every draw on the
// slow path; and as it is, the guess is almost always right.
func TestPickKernel(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernel")
	}
	for _, mode := range []struct {
		name    string
		skew    float64
		allSlow bool
	}{{name: "as it is"}, {name: "guess skewed", skew: 1e-3}, {name: "all slow", allSlow: true}} {
		draws, slow := 0, 0
		for seed := range uint64(40) {
			g := pyrandom.New(2000 + seed)
			L := 2 + g.RandBelow(900)
			if pow8 := []int{1, 2, 7, 8, 9, 63, 64, 65, 512, 513}; seed < uint64(len(pow8)) {
				L = pow8[seed] // the guess's levels at and around powers of 8
			}
			var res []int32
			for r := range L {
				for range g.RandBelow(15) {
					res = append(res, int32(r))
				}
			}
			if len(res) == 0 {
				continue
			}
			rng := pyrandom.New(seed)
			xs := make([]float64, 3000)
			for i := range xs {
				xs[i] = rng.Random()
			}
			p := newPicker(res, L)
			pickSkew, pickAllSlow = mode.skew, mode.allSlow
			// in two calls, the second starting from the first's counts
			picks := p.drawAll(xs[:1000], nil)
			picks = p.drawAll(xs[1000:], picks)
			pickSkew, pickAllSlow = 0, false
			ref := pyrandom.New(seed)
			k := make([]float64, L)
			for i, got := range picks {
				if want := refPick(ref, res, k); int(got) != want {
					t.Fatalf("%s, seed %d (L %d), draw %d: kernel %d, reference %d", mode.name, seed, L, i, got, want)
				}
				k[res[got]]++
			}
			draws += len(picks)
			slow += p.slow
		}
		t.Logf("%s: %d draws, %d on the slow path", mode.name, draws, slow)
		if mode.name == "as it is" && slow > draws/1000 {
			t.Errorf("%d of %d draws took the slow path", slow, draws)
		}
		if mode.skew > 0 && slow < draws/1000 {
			t.Errorf("guess skewed: only %d of %d draws took the slow path (the skew does not reach the guess)", slow, draws)
		}
	}
}
