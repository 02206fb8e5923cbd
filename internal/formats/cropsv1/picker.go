package cropsv1

import (
	"math"
	"math/bits"
)

// picker draws Pass 1's atoms as the reference does: weight
// w_i = 1/(1 + k[res(i)]) per atom (k: the residue's draws so far), the
// sequential float64 prefix sums C of w (numpy cumsum), one random() x,
// r = x*C[M-1], and the first i with C[i] > r (searchsorted right).
//
// Recomputing C costs O(M) per draw. Instead the picker keeps the exact
// real prefix sums W of the same float64 weights, per residue, in a
// Fenwick tree of 128-bit fixed-point integers (each weight is an integer
// multiple of 2^-80 while it is >= 2^-28). |C_j - W_j| <= M*u*W (u = 2^-53,
// one rounding per addition), so when x*W lies farther than
// delta = (2M+32)*u*W from both boundaries of the atom it falls in, that
// atom is the reference's; otherwise (rarely) the picker computes C as
// the reference does.
type picker struct {
	res     []int32   // atom -> residue
	start   []int32   // residue -> its first atom (len L+1)
	w       []float64 // residue -> its current weight
	k       []float64 // residue -> its draws so far
	tree    []u128    // Fenwick tree over residues of n_r*w_r*2^80, padded to a power of two
	top     int       // len(tree)/2: find's first step
	total   u128      // the tree's sum
	cdf     []float64 // the slow path's prefix sums
	exactOK bool      // every weight is >= 2^-28 (fixed point exact)
	stale   bool      // tree and total are not w's (rebuilt when a draw needs them)
	slow    int       // draws that took the slow path

	// the C kernel's (drawAllC): the guess's sums, the counts as
	// integers, and what each count gives
	lv  []float64
	kc  []int32
	tab []pickK
}

// u128 is an unsigned 128-bit integer; arithmetic wraps.
type u128 struct{ hi, lo uint64 }

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	return u128{a.hi + b.hi + c, lo}
}

func (a u128) sub(b u128) u128 {
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	return u128{a.hi - b.hi - c, lo}
}

func (a u128) mul(n uint64) u128 {
	hi, lo := bits.Mul64(a.lo, n)
	return u128{a.hi*n + hi, lo}
}

// float is a as a float64 times 2^-80 (within an ulp).
func (a u128) float() float64 { return (float64(a.hi)*0x1p64 + float64(a.lo)) * 0x1p-80 }

// fixed is w*2^80 as an integer, exact for w in [2^-28, 2^16); ok false
// otherwise.
func fixed(w float64) (u128, bool) {
	if !(w >= 0x1p-28 && w < 0x1p16) {
		return u128{}, false
	}
	b := math.Float64bits(w)
	e := int(b>>52&0x7ff) - 1023
	m := b&(1<<52-1) | 1<<52
	sh := e + 28 // w*2^80 = m * 2^(e-52+80)
	return u128{m >> (64 - sh), m << sh}, true
}

// toFixed is floor(v*2^80) for 0 <= v < 2^16.
func toFixed(v float64) u128 {
	x := v * 0x1p80
	hi := math.Floor(x * 0x1p-64)
	return u128{uint64(hi), uint64(x - hi*0x1p64)}
}

func newPicker(res []int32, L int) *picker {
	p := new(picker)
	p.reset(res, L)
	return p
}

// reset starts p over for atoms res of L residues, reusing its memory.
// The Fenwick tree is built when a draw first needs it (the C kernel does
// not).
func (p *picker) reset(res []int32, L int) {
	*p = picker{res: res, start: grow(p.start, L+1), w: grow(p.w, L), k: grow(p.k, L), tree: p.tree,
		cdf: grow(p.cdf, len(res)), exactOK: true, stale: true, lv: p.lv, kc: p.kc, tab: p.tab}
	clear(p.start)
	clear(p.k)
	for _, r := range res {
		p.start[r+1]++
	}
	for r := range L {
		p.start[r+1] += p.start[r]
		p.w[r] = 1.0
	}
}

// build makes the Fenwick tree and total w's. The tree has a node for
// each residue (1..L) and zero-weight ones up to a power of two, so that
// find's descent needs no bounds.
func (p *picker) build() {
	L := len(p.w)
	size := 1 << bits.Len(uint(L))
	p.tree, p.top, p.total, p.stale = grow(p.tree, size), size/2, u128{}, false
	clear(p.tree)
	for r := range L {
		fw, ok := fixed(p.w[r])
		if !ok {
			p.exactOK = false
			return
		}
		p.addTree(r, fw.mul(uint64(p.start[r+1]-p.start[r])))
	}
}

func (p *picker) addTree(r int, v u128) {
	p.total = p.total.add(v)
	for i := r + 1; i < len(p.tree); i += i & -i {
		p.tree[i] = p.tree[i].add(v)
	}
}

// find returns the first residue r with prefix(r+1) > x, and prefix(r)
// (r >= L when x >= the total): the Fenwick descent, without branches on
// the comparisons (their outcomes are random).
func (p *picker) find(x u128) (int, u128) {
	pos, acc := 0, u128{}
	tree := p.tree
	for step := p.top; step > 0; step >>= 1 {
		s := acc.add(tree[pos+step])
		// take the step when s <= x: x - s does not borrow
		_, b := bits.Sub64(x.lo, s.lo, 0)
		_, b = bits.Sub64(x.hi, s.hi, b)
		take := b - 1 // all ones, or zero
		pos += step & int(take)
		acc.hi ^= (acc.hi ^ s.hi) & take
		acc.lo ^= (acc.lo ^ s.lo) & take
	}
	return pos, acc
}

// drawAll takes one draw for each x in xs (the random() the reference
// draws for it), counting each drawn atom's residue, and appends the
// atoms to picks: with the C kernel where it is built in, else draw and
// count in turn.
func (p *picker) drawAll(xs []float64, picks []int32) []int32 {
	if kernelOK && useKernel {
		if out, ok := p.drawAllC(xs, picks); ok {
			return out
		}
	}
	for _, x := range xs {
		idx := p.draw(x)
		picks = append(picks, int32(idx))
		p.count(int(p.res[idx]))
	}
	return picks
}

// draw returns the atom the reference picks for the random() x.
func (p *picker) draw(x float64) int {
	m := len(p.res)
	if p.exactOK && p.stale {
		p.build()
	}
	if p.exactOK {
		wt := p.total.float()
		rf := x * wt
		delta := float64(2*m+32) * 0x1p-53 * wt
		res, before := p.find(toFixed(rf))
		if res < len(p.w) {
			n := int(p.start[res+1] - p.start[res])
			wr := p.w[res]
			t := int((rf - before.float()) / wr)
			t = max(0, min(n-1, t))
			fw, _ := fixed(wr)
			lower := before.add(fw.mul(uint64(t)))
			upper := lower.add(fw)
			if lower.float()+delta < rf && rf+delta < upper.float() {
				return int(p.start[res]) + t
			}
		}
	}
	p.slow++
	c := 0.0
	for i, res := range p.res {
		c += p.w[res]
		p.cdf[i] = c
	}
	rv := x * c
	lo, hi := 0, m // first i with cdf[i] > rv
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if p.cdf[mid] > rv {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return min(lo, m-1)
}

// count records one more draw of residue res: its weight becomes
// 1/(1 + k), as numpy computes it.
func (p *picker) count(res int) {
	old := p.w[res]
	p.k[res] += 1.0
	nw := 1.0 / (1.0 + p.k[res])
	p.w[res] = nw
	if !p.exactOK || p.stale {
		return
	}
	fo, _ := fixed(old)
	fn, ok := fixed(nw)
	if !ok {
		p.exactOK = false
		return
	}
	n := uint64(p.start[res+1] - p.start[res])
	p.addTree(res, fn.mul(n).sub(fo.mul(n)))
}

// pickK is what a count k gives the kernel: w = 1/(1+k) as count
// computes it, and tab[k+1].w - w (exact: the difference of two floats
// within a factor of 2).
type pickK struct{ w, dw float64 }

// pickTable returns tab with its entries for the counts 0..n (at least).
func pickTable(tab []pickK, n int) []pickK {
	for k := len(tab); k <= n+1; k++ {
		w := 1.0 / (1.0 + float64(k))
		tab = append(tab, pickK{w: w})
		if k > 0 {
			tab[k-1].dw = w - tab[k-1].w
		}
	}
	return tab
}

// pickDepth is the kernel's tree for L residues: depth levels of fan-out
// 8 (8^depth >= L leaves), n values in all (9 a node).
func pickDepth(L int) (depth, n int) {
	depth, leaves, n := 1, 8, 9
	for leaves < L {
		n += 9 * leaves
		depth, leaves = depth+1, 8*leaves
	}
	return depth, n
}

// pickMargin is the kernel's margin for m atoms and a tree of depth
// levels, as a multiple of Wmax: mbase + mslope*K at draw K (see cr_pick).
func pickMargin(m, depth int) (mbase, mslope float64) {
	D := float64(depth)
	return (3*float64(m) + 64 + (D+2)*(8*D+4)) * 0x1p-53, (D + 2) * 3 * 0x1p-53
}
