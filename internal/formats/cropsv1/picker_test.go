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
			got, want := p.draw(a), refPick(b, res, k)
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
