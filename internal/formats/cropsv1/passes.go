package cropsv1

import (
	"math"
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// pass1 writes the coarse boxes: while a 4-token mention fits cap1, one
// atom drawn with weight 1/(1 + draws of its residue so far) (one random()
// against the sequential prefix sums), three Gaussians(Pass1Sigma), and the
// noised point's box. It returns the tokens used.
//
// Which draws happen never depends on a Gaussian's value, so the loop only
// takes the draws; the values are then computed in one batch with the
// approximate log, sin and cos (pyrandom.GaussPairsApprox), and each one
// whose rounding the approximation could change is recomputed exactly.
//
// The mentions' lengths in bytes are counted as they are drawn, so the
// document (w's prefix, then the passes) is written into a new buffer
// (Writer.Detach) of the exact length of the prefix and Pass 1 plus a
// bound on the rest of the budget's (pass2TokenBytes per token, and the
// end token), which is returned: its memory becomes the document's text,
// without a copy.
func (g *Generator) pass1(f *coordfront.Front, cfg Config, cap1, budget int, w *coordfront.Writer, d *Document) (int, coordfront.Writer) {
	m := len(f.Placed)
	if m == 0 {
		return 0, w.Detach(pass2TokenBytes*budget + endBytes)
	}
	pick := &g.pick
	pick.reset(f.Atoms.Res, f.L)
	// the pairs of draws (x, u) of the Gaussian stream: value v of the
	// pass is pair (z0+v)/2's cos (even) or sin (odd) value, where z0 is 1
	// when the pass starts with gauss()'s cached value
	picks, xs, us := g.picks[:0], g.xs[:0], g.us[:0]
	defer func() { g.picks, g.xs, g.us = picks, xs, us }()
	z0 := 0
	if dr, ok := f.Normals.Cached(); ok {
		xs, us, z0 = append(xs, dr.X), append(us, dr.U), 1
	}
	// a mention's draws: the atom's random(), then its three Gaussians;
	// how many mentions fit does not depend on the draws, so the draws
	// are taken first and the atoms then picked in one go
	nm := cap1 / pass1Mention
	px := grow(g.px, nm)
	g.px = px
	xs, us = g.mentionDraws(f, px, xs, us)
	picks = pick.drawAll(px, picks)
	used := pass1Mention * nm
	hdrBytes := 0 // the mentions' <pX> <ATOM> bytes
	for _, idx := range picks {
		hdrBytes += int(coordfront.Position16(f.Pos(int(f.Atoms.Res[idx])))[15]) + int(f.Atoms.Atom16(int(idx))[15])
	}
	out := w.Detach(hdrBytes + 2*xyzBytes*len(picks) + pass2TokenBytes*(budget-used) + endBytes)
	w = &out
	zs := grow(g.zs, 2*len(xs))
	g.zs = zs
	pyrandom.GaussPairsApprox(xs, us, zs)
	sigma, tol := cfg.Pass1Sigma, noiseTol(cfg.Pass1Sigma)
	for k, idx := range picks {
		p := &f.Placed[idx]
		var b [3]int
		for j := range 3 {
			zi := z0 + 3*k + j
			v := p[j] + float64(0.0+float64(zs[zi]*sigma))
			r, ok := coordfront.ClampRoundSafe(v, 999.9, 10, tol)
			if !ok {
				exact := coordfront.Draw{X: xs[zi/2], U: us[zi/2], Second: zi&1 == 1}.Exact()
				v = p[j] + float64(0.0+float64(exact*sigma))
				r = math.RoundToEven(float64(min(999.9, max(0.0, v)) * 10))
			}
			b[j] = int(r) / 100
		}
		w.Put(coordfront.Position16(f.Pos(int(f.Atoms.Res[idx]))))
		w.Put(f.Atoms.Atom16(int(idx)))
		boxTokens(w, b)
	}
	d.NumPass1Mentions = len(picks)
	return used, out
}

// mentionDraws takes Pass 1's draws for len(px) mentions: each one's
// random() into px, then its three Gaussians' pairs (Normals.AppendPairs3:
// one pair after a cached value, else two, the second's value then
// cached), appended to xs and us. Which draws are taken does not depend
// on their values, so they are read in one go (Rand.Randoms).
func (g *Generator) mentionDraws(f *coordfront.Front, px, xs, us []float64) ([]float64, []float64) {
	cd, cached := f.Normals.Cached()
	k := 0 // random()s
	for j, c := 0, cached; j < len(px); j, c = j+1, !c {
		k += 3
		if !c {
			k += 2
		}
	}
	rs := grow(g.rs, k)
	g.rs = rs
	f.Rand.Randoms(rs)
	for j := range px {
		px[j] = rs[0]
		if cached {
			xs, us = append(xs, rs[1]*(2*math.Pi)), append(us, 1.0-rs[2])
			rs = rs[3:]
		} else {
			cd = coordfront.Draw{X: rs[3] * (2 * math.Pi), U: 1.0 - rs[4], Second: true}
			xs, us = append(xs, rs[1]*(2*math.Pi), cd.X), append(us, 1.0-rs[2], cd.U)
			rs = rs[5:]
		}
		cached = !cached
	}
	f.Normals.Restore(cd, cached)
	return xs, us
}

// noiseTol bounds, in tenths, the error of a noised value computed with
// the approximate Gaussian (coordfront.Draw.Approx) for placed values
// within [0, 1000].
func noiseTol(sigma float64) float64 { return 10 * pyrandom.GaussApproxBound(1000, sigma) }

// noisedTenths is round(clamp(p + gauss(0, sigma), 0, 999.9) * 10) for the
// Gaussian of d: computed with the approximate value, and again with the
// exact one when the approximation's error (tol, in tenths) could change
// the rounding.
func noisedTenths(p, sigma, tol float64, d coordfront.Draw, c *coordfront.ApproxCache) int {
	v := p + float64(0.0+float64(c.Approx(d)*sigma))
	r, ok := coordfront.ClampRoundSafe(v, 999.9, 10, tol)
	if !ok {
		v = p + float64(0.0+float64(d.Exact()*sigma))
		r = math.RoundToEven(float64(min(999.9, max(0.0, v)) * 10))
	}
	return int(r)
}

// boxKey orders boxes as Python orders their (x, y, z) tuples.
func boxKey(b [3]int) int32 { return int32(b[0]*grid*grid + b[1]*grid + b[2]) }

func keyBox(k int32) [3]int {
	return [3]int{int(k) / (grid * grid), int(k) / grid % grid, int(k) % grid}
}

// neighbors appends the in-bounds 26-neighbourhood of b in the reference's
// order (dx, dy, dz each -1, 0, 1, nested).
func neighbors(dst [][3]int, b [3]int) [][3]int {
	for dx := -1; dx <= 1; dx++ {
		for dy := -1; dy <= 1; dy++ {
			for dz := -1; dz <= 1; dz++ {
				if dx == 0 && dy == 0 && dz == 0 {
					continue
				}
				n := [3]int{b[0] + dx, b[1] + dy, b[2] + dz}
				if n[0] >= 0 && n[0] < grid && n[1] >= 0 && n[1] < grid && n[2] >= 0 && n[2] < grid {
					dst = append(dst, n)
				}
			}
		}
	}
	return dst
}

type member struct {
	atom int32
	n    [3]int32 // the noised position in tenths
}

// cropBox is what deciding a crop's members needs: its box, the values
// each axis of the box holds (widened by 1e-6 for the roundings of v*10
// and of its noise), the noise and the keep probability.
type cropBox struct {
	bb       [3]int
	lo, hi   [3]float64
	flo, fhi [3]float64 // farther than these, no draw can reach the box
	sigma    float64
	s2       float64 // the cheap bound's 2 sigma^2, with room
	tol      float64 // the approximate noise's error bound, in tenths
	keep     float64
}

func newCropBox(bb [3]int, sigma, keep float64) cropBox {
	cb := cropBox{bb: bb, sigma: sigma, tol: noiseTol(sigma), keep: keep}
	for j := range 3 {
		cb.lo[j], cb.hi[j] = float64(10*bb[j])-0.05-1e-6, float64(10*bb[j])+9.95+1e-6
		if bb[j] == 0 {
			cb.lo[j] = math.Inf(-1)
		}
		if bb[j] == grid-1 {
			cb.hi[j] = math.Inf(1)
		}
	}
	// |gauss(0, sigma)|^2 <= sigma^2 * 2*ln(1/u) <= sigma^2 * 2*(1-u)/sqrt(u)
	// <= sigma^2 * 2*(1-u)/u (-ln u <= (1-u)/sqrt(u): the difference is 0
	// at u = 1 and falls with u, its derivative -(1-sqrt(u))^2/(2u^1.5)),
	// with room for the libm's and the products' ulps
	cb.s2 = 2 * sigma * sigma * (1 + 1e-9)
	// a candidate farther than 8.6 sigma from the box on some axis cannot
	// reach it whatever its draws (|gauss(0, 1)| < 8.58 as u >= 2^-53)
	for j := range 3 {
		cb.flo[j], cb.fhi[j] = cb.lo[j]-8.6*sigma, cb.hi[j]+8.6*sigma
	}
	return cb
}

// far reports whether p lies too far from the box for any draw.
func (cb *cropBox) far(p *[3]float64) bool {
	return p[0] < cb.flo[0] || p[0] > cb.fhi[0] || p[1] < cb.flo[1] || p[1] > cb.fhi[1] || p[2] < cb.flo[2] || p[2] > cb.fhi[2]
}

// candidates appends to included the members of the crop of cb among
// the candidate atoms flat, in order: each far candidate's three
// Gaussians are only counted, and skipped in bulk before the next
// candidate that needs its draws (or the keep draw).
func (g *Generator) candidates(f *coordfront.Front, cb *cropBox, flat []int32, included []member) []member {
	skip := 0
	for _, ai := range flat {
		if cb.far(&f.Placed[ai]) {
			skip += 3
			continue
		}
		f.Normals.Skip(skip)
		skip = 0
		if m, ok := g.candidate(f, cb, ai); ok {
			included = append(included, m)
		}
	}
	f.Normals.Skip(skip)
	return included
}

// candidate takes atom ai's three Gaussians and, if its noised point
// falls in the box, the keep draw: the cheap bound (cropBox.s2) on all
// three axes first, then the values, first on the axes where the atom lies outside
// the box (the likeliest to leave it out), then on the others.
func (g *Generator) candidate(f *coordfront.Front, cb *cropBox, ai int32) (member, bool) {
	p := &f.Placed[ai]
	ds := f.Normals.Next3()
	var outside [3]bool
	for j := range 3 {
		d := 0.0
		if p[j] < cb.lo[j] {
			d = cb.lo[j] - p[j]
		} else if p[j] > cb.hi[j] {
			d = p[j] - cb.hi[j]
		}
		// u > 0; the C kernel screens with the looser d*d*u first
		if u := ds[j].U; d > 0 && cb.s2*(1-u) < d*d*math.Sqrt(u) {
			return member{}, false // its noise cannot reach the box
		}
		outside[j] = d > 0
	}
	var n [3]int32
	for _, out := range [2]bool{true, false} {
		for j := range 3 {
			if outside[j] != out {
				continue
			}
			n[j] = int32(noisedTenths(p[j], cb.sigma, cb.tol, ds[j], &g.approx))
			if int(n[j])/100 != cb.bb[j] {
				return member{}, false
			}
		}
	}
	if f.Rand.Random() >= cb.keep {
		return member{}, false
	}
	return member{ai, n}, true
}

// pass2 writes the crops until a 3-token header no longer fits the budget,
// or a crop overflows it (truncated).
func (g *Generator) pass2(f *coordfront.Front, cfg Config, budget, used int, w *coordfront.Writer, d *Document) {
	m := len(f.Placed)
	if m == 0 {
		return
	}
	trueCell := grow(g.trueCell, m)
	g.trueCell = trueCell
	cells := &g.cells
	cells.build(f.Placed, trueCell)
	frontier := g.frontier[:0] // sorted
	// the crops of each box (visits, by cells.near) and the boxes shown,
	// in first-shown order (their keys and their visits indices); every
	// box a crop can take is a true cell or a neighbour of one
	visits := grow(g.visits, cells.nearSize())
	// whether each box (by cells.near) is in frontier
	inFrontier := grow(g.inFrontier, cells.nearSize())
	shownOrder, shownNear := g.shownOrder[:0], g.shownNear[:0]
	nbs, included, counts := g.nbs, g.included, g.counts
	defer func() {
		for _, v := range shownNear { // visits is all zeros between documents
			visits[v] = 0
		}
		for _, k := range frontier { // and inFrontier all false
			inFrontier[cells.near(keyBox(k))] = false
		}
		g.visits, g.inFrontier, g.frontier, g.shownOrder, g.shownNear, g.nbs, g.included, g.counts =
			visits, inFrontier, frontier, shownOrder, shownNear, nbs, included, counts
	}()
	r := f.Rand
	for used+cropHeader <= budget {
		coin := r.Random()
		var box int32
		switch {
		case len(shownOrder) == 0 || coin < cfg.SelectRandom:
			box = trueCell[r.RandBelow(m)]
		case coin < cfg.SelectRandom+cfg.SelectFrontier:
			if len(frontier) > 0 {
				box = frontier[r.RandBelow(len(frontier))]
			} else {
				box = trueCell[r.RandBelow(m)]
			}
		default:
			counts = counts[:0]
			for _, v := range shownNear {
				counts = append(counts, float64(visits[v]))
			}
			total := coordfront.Fsum(counts)
			x := r.Random() * total
			cum := 0.0
			box = shownOrder[len(shownOrder)-1]
			for k, b := range shownOrder {
				cum += counts[k]
				if x < cum {
					box = b
					break
				}
			}
		}
		bb := keyBox(box)
		vi := cells.near(bb)
		visit := int(visits[vi])
		sigma := cfg.RefineNoiseBase / float64((visit+1)*(visit+1))
		w.Tok(tokCrop)
		boxTokens(w, bb)
		used += cropHeader
		d.NumCrops++

		nbs = neighbors(nbs[:0], bb)
		cb := newCropBox(bb, sigma, cfg.KeepProb)
		flat := append(g.flat[:0], cells.atoms(bb)...)
		for _, nb := range nbs {
			flat = append(flat, cells.atoms(nb)...)
		}
		g.flat = flat
		if kernelOK && useKernel {
			included = g.candidatesC(f, &cb, flat, len(cells.atoms(bb)), included[:0])
		} else {
			included = g.candidates(f, &cb, flat, included[:0])
		}
		pyrandom.Shuffle(r, included)
		emitted := 0
		truncated := false
		for _, in := range included {
			if used+cropAtom > budget {
				truncated = true
				break
			}
			n := [3]int{int(in.n[0]), int(in.n[1]), int(in.n[2])}
			w.Put(coordfront.Position16(f.Pos(int(f.Atoms.Res[in.atom]))))
			w.Put(f.Atoms.Atom16(int(in.atom)))
			w.Put(coordfront.XYZ16(100*(n[0]/10%10) + 10*(n[1]/10%10) + n[2]/10%10))
			w.Put(coordfront.XYZ16(100*(n[0]%10) + 10*(n[1]%10) + n[2]%10))
			used += cropAtom
			emitted++
		}
		d.CropAtomsEmitted += emitted
		if emitted == 0 {
			d.NumEmptyCrops++
		}
		if visit == 0 {
			shownOrder, shownNear = append(shownOrder, box), append(shownNear, int32(vi))
		}
		visits[vi] = int32(visit + 1)
		d.MaxBoxVisits = max(d.MaxBoxVisits, visit+1)
		if inFrontier[vi] {
			i, _ := slices.BinarySearch(frontier, box)
			frontier = slices.Delete(frontier, i, i+1)
			inFrontier[vi] = false
		}
		if occupied := len(cells.atoms(bb)) > 0; occupied {
			for _, nb := range nbs {
				ni := cells.near(nb)
				if visits[ni] > 0 || inFrontier[ni] { // shown, or already there
					continue
				}
				k := boxKey(nb)
				i, _ := slices.BinarySearch(frontier, k)
				frontier = slices.Insert(frontier, i, k)
				inFrontier[ni] = true
			}
		}
		if truncated {
			d.Truncated = true
			break
		}
	}
	d.NumDistinctCropBoxes = len(shownOrder)
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
