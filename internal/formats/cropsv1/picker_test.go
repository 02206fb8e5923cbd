package cropsv1

import (
	"math"
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

// layout is the atoms' residues of L residues of 0 to n-1 atoms each.
func layout(g *pyrandom.Rand, L, n int) []int32 {
	var res []int32
	for r := range L {
		for range g.RandBelow(n) {
			res = append(res, int32(r))
		}
	}
	return res
}

// randoms is the first n random()s of seed.
func randoms(seed uint64, n int) []float64 {
	rng := pyrandom.New(seed)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.Random()
	}
	return xs
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
		res := layout(g, L, 15)
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
// over the layouts of TestPickerIsReference, with the margin as it is,
// widened a million times (draws near a bound then take the slow path
// between fast ones), and with every draw on the slow path; as it is, the
// fast path decides almost every draw. The picker's own draws then go on
// from the kernel's counts (its tree rebuilt).
func TestPickKernel(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernel")
	}
	for _, mode := range []struct {
		name    string
		widen   float64
		allSlow bool
	}{{name: "as it is"}, {name: "margin widened", widen: 1e6}, {name: "all slow", allSlow: true}} {
		draws, slow := 0, 0
		for seed := range uint64(40) {
			g := pyrandom.New(2000 + seed)
			L := 2 + g.RandBelow(900)
			if pow8 := []int{1, 2, 7, 8, 9, 63, 64, 65, 512, 513}; seed < uint64(len(pow8)) {
				L = pow8[seed] // the guess's levels at and around powers of 8
			}
			res := layout(g, L, 15)
			if len(res) == 0 {
				continue
			}
			xs := randoms(seed, 3000)
			p := newPicker(res, L)
			pickWiden, pickAllSlow = mode.widen, mode.allSlow
			// in two calls, the second starting from the first's counts
			picks := p.drawAll(xs[:1000], nil)
			picks = p.drawAll(xs[1000:2500], picks)
			pickWiden, pickAllSlow = 0, false
			for _, x := range xs[2500:] {
				idx := p.draw(x)
				picks = append(picks, int32(idx))
				p.count(int(res[idx]))
			}
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
		if mode.widen > 0 && slow < draws/1000 {
			t.Errorf("margin widened: only %d of %d draws took the slow path (the knob does not reach the check)", slow, draws)
		}
	}
}

// TestPickTreeBound: the kernel's float sums stay within the drift its
// margin assumes (cr_pick's E = ((8D+2) + 2.01K)U*Wmax after K draws) of
// the exact sums of the weights it leaves, over many layouts and up to
// 20,000 draws.
func TestPickTreeBound(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernel")
	}
	worst := 0.0
	for seed := range uint64(30) {
		g := pyrandom.New(3000 + seed)
		L := 1 + g.RandBelow(5000)
		res := layout(g, L, 20)
		if len(res) == 0 {
			continue
		}
		K := 1000 + g.RandBelow(19000)
		xs := randoms(seed, K)
		p := newPicker(res, L)
		wmax := float64(len(res))
		p.drawAll(xs, nil)
		D, _ := pickDepth(L)
		bound := (float64(8*D+2) + 2.01*float64(K)) * 0x1p-53 * wmax
		// each level's values against the exact sums of the residues under
		// each child
		off, nodes, span := 0, 1, 1
		for range D - 1 {
			span *= 8
		}
		for d := range D {
			for nd := range nodes {
				var acc u128
				for c := range 8 {
					for r := (8*nd + c) * span; r < min(L, (8*nd+c+1)*span); r++ {
						fw, _ := fixed(p.w[r])
						acc = acc.add(fw.mul(uint64(p.start[r+1] - p.start[r])))
					}
					got := p.lv[off+9*nd+1+c]
					if e := math.Abs(got - acc.float()); e > bound {
						t.Fatalf("seed %d (L %d, %d draws): level %d node %d child %d: %v, exact %v (off by %.3g, bound %.3g)",
							seed, L, K, d, nd, c, got, acc.float(), e, bound)
					} else {
						worst = max(worst, e/bound)
					}
				}
			}
			off += 9 * nodes
			nodes, span = 8*nodes, span/8
		}
	}
	t.Logf("the largest drift is %.3g of the bound", worst)
}
