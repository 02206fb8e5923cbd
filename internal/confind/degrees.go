package confind

import (
	"math"
	"slices"
)

// Contact is one reported contact: positions I < J with Degree > 0.
type Contact struct {
	I, J   int
	Degree float64
}

// pairwiseSum is numpy's pairwise summation of a (float64 add.reduce):
// sequential below 8 values, eight accumulators up to 128, and a split at
// n/2 rounded down to a multiple of 8 above that.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := 0; j < 8; j++ {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}

// survivors is the contact view of the surviving rotamers.
type survivors struct {
	w      []float64 // weight of each surviving rotamer, position-major
	posRot []int32   // survivors of position i: w[posRot[i]:posRot[i+1]]
	atoms  []vec     // contact atoms, rotamer-major, placement order
	rat    []int32   // contact atoms of survivor r: atoms[rat[r]:rat[r+1]]
	rbox   []box     // the box of each survivor's contact atoms
	sum    []float64 // per position, the pairwise sum of its weights
}

// reset empties s for npos positions, at most nrot survivors and natom
// contact atoms.
func (s *survivors) reset(npos, nrot, natom int) {
	s.w = resize(s.w, nrot, false)[:0]
	s.rbox = resize(s.rbox, nrot, false)[:0]
	s.atoms = resize(s.atoms, natom, false)[:0]
	s.rat = append(resize(s.rat, nrot+1, false)[:0], 0)
	s.posRot = append(resize(s.posRot, npos+1, false)[:0], 0)
	s.sum = resize(s.sum, npos, false)[:0]
}

// addAlive appends the alive rows of the n rows of template t's atoms at
// (coordinate d of atom k at at[(3*k+d)*n+r]) as survivors, row r with
// weight prop*t.weights[r], in row order; it returns how many.
func (s *survivors) addAlive(prop float64, t *template, at []float64, alive []bool) int {
	n, added := len(alive), 0
	for _, ok := range alive {
		if ok {
			added++
		}
	}
	base, nc := len(s.atoms), len(t.contactAt)
	s.atoms = slices.Grow(s.atoms, added*nc)[:base+added*nc]
	dst := s.atoms[base:]
	for r, ok := range alive {
		if !ok {
			continue
		}
		s.w = append(s.w, prop*t.weights[r])
		b := emptyBox()
		for q, k := range t.contactAt {
			o := 3*k*n + r
			x := vec{at[o], at[o+n], at[o+2*n]}
			dst[q] = x
			b.add(x)
		}
		dst = dst[nc:]
		base += nc
		s.rat = append(s.rat, int32(base))
		s.rbox = append(s.rbox, b)
	}
	return added
}

// endPosition closes the current position's survivors.
func (s *survivors) endPosition() {
	s.sum = append(s.sum, pairwiseSum(s.w[s.posRot[len(s.posRot)-1]:]))
	s.posRot = append(s.posRot, int32(len(s.w)))
}

// box is an axis-aligned bounding box; empty when lo > hi.
type box struct{ lo, hi vec }

func emptyBox() box {
	inf := math.Inf(1)
	return box{vec{inf, inf, inf}, vec{-inf, -inf, -inf}}
}

// add grows b to hold p, with the builtin min and max (no branches: the
// comparisons' outcomes are random). A box only rejects pairs that cannot
// touch, so the sign of a zero is immaterial; a NaN coordinate (never
// within a cutoff of anything) makes the box NaN, which rejects nothing
// (every comparison with it is false): it costs tests, never a result.
func (b *box) add(p vec) {
	for d := 0; d < 3; d++ {
		b.lo[d] = min(b.lo[d], p[d])
		b.hi[d] = max(b.hi[d], p[d])
	}
}

// grown is b grown by gap on every side.
func (b box) grown(gap float64) box {
	for d := 0; d < 3; d++ {
		b.lo[d] -= gap
		b.hi[d] += gap
	}
	return b
}

// disjoint reports whether b and o do not overlap on some axis.
func (b *box) disjoint(o *box) bool {
	return b.lo[0] > o.hi[0] || o.lo[0] > b.hi[0] ||
		b.lo[1] > o.hi[1] || o.lo[1] > b.hi[1] ||
		b.lo[2] > o.hi[2] || o.lo[2] > b.hi[2]
}

// misses is disjoint with one branch (the six comparisons as integers),
// for the many rotamer pairs of a position pair.
func (b *box) misses(o *box) bool {
	return lt(o.hi[0], b.lo[0])|lt(b.hi[0], o.lo[0])|lt(o.hi[1], b.lo[1])|lt(b.hi[1], o.lo[1])|lt(o.hi[2], b.lo[2])|lt(b.hi[2], o.lo[2]) != 0
}

// lt is a < b as 0 or 1 (a conditional move, not a branch).
func lt(a, b float64) int {
	r := 0
	if a < b {
		r = 1
	}
	return r
}

// apart reports whether the boxes are more than gap apart on an axis
// (pyconfind's test: lo_i > hi_j + gap or lo_j > hi_i + gap).
func (b *box) apart(o *box, gap float64) bool {
	for d := 0; d < 3; d++ {
		if b.lo[d] > o.hi[d]+gap || o.lo[d] > b.hi[d]+gap {
			return true
		}
	}
	return false
}

// first is the first contacting atom pair (a of ra, b of rb, indices
// within the rotamers) of a contacting rotamer pair.
type first struct{ a, b, rb int32 }

// rotGap is the contact cutoff plus a margin for the rotamer-level box
// test, which pyconfind does not make: it must never drop a contact.
const rotGap = 1e-9

// degrees computes the contact degrees (section 5) and the collision mass
// of each surviving rotamer. Pairs (i, j) need both CA atoms within dcut
// and heavy-atom boxes within cutoff; atoms are in contact at distance <=
// cutoff. Each contacting rotamer pair is added once, in the order of its
// first contacting atom pair (atoms of i outer, atoms of j inner, as
// pyconfind's loop), with rotamer boxes to skip pairs that cannot touch.
func (ws *workspace) degrees(pos []Position, cutoff, dcut float64) ([]Contact, []float64) {
	s := &ws.sv
	c2, d2 := cutoff*cutoff, dcut*dcut
	cp := resize(ws.cp, len(s.w), true)
	rbox, rat := s.rbox, s.rat
	pbox := resize(ws.pbox, len(pos), false)
	var cas []vec
	var caPos []int32
	defer func() { ws.cp, ws.pbox = cp, pbox }()
	for i := range pos {
		pbox[i] = emptyBox()
		for r := s.posRot[i]; r < s.posRot[i+1]; r++ {
			if rat[r] != rat[r+1] {
				pbox[i].add(rbox[r].lo)
				pbox[i].add(rbox[r].hi)
			}
		}
		if pos[i].hasBB[bbCA] && s.posRot[i] != s.posRot[i+1] {
			cas = append(cas, pos[i].bb[bbCA])
			caPos = append(caPos, int32(i))
		}
	}
	// Rotamer and position boxes grown by the cutoff (and a margin): a
	// rotamer pair can touch only if one's box meets the other's grown box.
	gap := cutoff + rotGap
	rgrown := resize(ws.rgrown, len(s.w), false)
	pgrown := resize(ws.pgrown, len(pos), false)
	ws.rgrown, ws.pgrown = rgrown, pgrown
	for r := range rbox {
		rgrown[r] = rbox[r].grown(gap)
	}
	for i := range pbox {
		pgrown[i] = pbox[i].grown(gap)
	}
	ws.pairsReady()
	g := &ws.grids[1]
	g.build(cas, dcut)
	// every position's partners (sorted), then all their numerators at
	// once, in that order (the collision masses add up in it)
	cells, partners, off := ws.cells[:0], ws.touched[:0], append(ws.pairOff[:0], 0)
	for ci, i32 := range caPos {
		i := int(i32)
		first := len(partners)
		cells = g.within(cells[:0], cas[ci], dcut)
		for _, cr := range cells {
			for q := g.start[cr.base+cr.z0]; q < g.start[cr.base+cr.z1+1]; q++ {
				if j := caPos[g.items[q]]; int(j) > i && dist2(cas[ci], g.pts[q]) <= d2 && !pbox[i].apart(&pbox[j], cutoff) {
					partners = append(partners, j)
				}
			}
		}
		slices.Sort(partners[first:])
		off = append(off, int32(len(partners)))
	}
	num := resize(ws.num, len(partners), false)
	ws.cells, ws.touched, ws.pairOff, ws.num = cells, partners, off, num
	pairs(ws, caPos, off, partners, cp, c2, num)
	var out []Contact
	for ci, i32 := range caPos {
		i := int(i32)
		for k := off[ci]; k < off[ci+1]; k++ {
			j := partners[k]
			deg := num[k] / float64(s.sum[i]*s.sum[j])
			if deg > 0 {
				out = append(out, Contact{I: i, J: int(j), Degree: deg})
			}
		}
	}
	return out, cp
}

// pairsGo sets num[k] to pairGo of positions is[t] < js[k] for k in
// [off[t], off[t+1]), in that order.
func pairsGo(ws *workspace, is, off, js []int32, cp []float64, c2 float64, num []float64) {
	for t, i := range is {
		for k := off[t]; k < off[t+1]; k++ {
			num[k] = pairGo(ws, int(i), int(js[k]), cp, c2)
		}
	}
}

// freedom is pyconfind's freedom of one position from the collision masses
// of its surviving rotamers.
func freedom(cp []float64, nPlaced int) float64 {
	if nPlaced == 0 {
		return math.NaN()
	}
	n1, n2 := 0, 0
	for _, v := range cp {
		if v/100 < 0.5 {
			n1++
		}
		if v/100 < 2.0 {
			n2++
		}
	}
	return math.Sqrt(float64(n1*n1+n2*n2)/2) / float64(nPlaced)
}

// pairGo is pair in Go: the numerator of the degree of positions i < j
// (the weight products of their contacting rotamer pairs, added in the
// order of each pair's first contacting atom pair: atoms of i outer, atoms
// of j inner), adding the pairs' collision masses to cp.
func pairGo(ws *workspace, i, j int, cp []float64, c2 float64) float64 {
	s := &ws.sv
	rbox, rat, rgrown, pgrown := s.rbox, s.rat, ws.rgrown, ws.pgrown
	near, firsts, as, ai := ws.near[:0], ws.firsts[:0], ws.as[:0], ws.ai[:0]
	defer func() { ws.near, ws.firsts, ws.as, ws.ai = near, firsts, as, ai }()
	c := 0.0
	// j's rotamers that can touch anything of i
	for rb := s.posRot[j]; rb < s.posRot[j+1]; rb++ {
		if rat[rb] != rat[rb+1] && !rbox[rb].disjoint(&pgrown[i]) {
			near = append(near, rb)
		}
	}
	if len(near) == 0 {
		return 0
	}
	for ra := s.posRot[i]; ra < s.posRot[i+1]; ra++ {
		if rat[ra] == rat[ra+1] || rbox[ra].disjoint(&pgrown[j]) {
			continue
		}
		// Each rotamer pair of j that touches ra, at its first
		// contacting atom pair (a, b) in pyconfind's loop order;
		// then added in that order.
		firsts = firsts[:0]
		wa := s.w[ra]
		// ra's atoms in j's grown box (the others touch nothing of j)
		pj := &pgrown[j]
		as, ai = as[:0], ai[:0]
		for a, x := range s.atoms[rat[ra]:rat[ra+1]] {
			if lt(x[0], pj.lo[0])|lt(pj.hi[0], x[0])|lt(x[1], pj.lo[1])|lt(pj.hi[1], x[1])|lt(x[2], pj.lo[2])|lt(pj.hi[2], x[2]) == 0 {
				as, ai = append(as, x), append(ai, int32(a))
			}
		}
		if len(as) == 0 {
			continue
		}
		ba := rbox[ra]
		for _, rb := range near {
			bb := &rgrown[rb]
			if ba.misses(bb) {
				continue
			}
			bs := s.atoms[rat[rb]:rat[rb+1]]
		scan:
			for n, x := range as {
				if x[0] < bb.lo[0] || x[0] > bb.hi[0] || x[1] < bb.lo[1] || x[1] > bb.hi[1] || x[2] < bb.lo[2] || x[2] > bb.hi[2] {
					continue
				}
				for b := range bs {
					if dist2(x, bs[b]) <= c2 {
						firsts = append(firsts, first{ai[n], int32(b), rb})
						break scan
					}
				}
			}
		}
		// order by a (a contact of a later rb with the same a
		// has a later b): few, nearly sorted (insertion sort)
		for p := 1; p < len(firsts); p++ {
			f := firsts[p]
			q := p
			for q > 0 && firsts[q-1].a > f.a {
				firsts[q] = firsts[q-1]
				q--
			}
			firsts[q] = f
		}
		for _, f := range firsts {
			c = c + float64(wa*s.w[f.rb])
			cp[ra] += s.w[f.rb]
			cp[f.rb] += wa
		}
	}
	return c
}
