package distancesv2

import (
	"math"
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/geom"
)

// contactGrid finds the pool's contacts with a dense cell grid (cells of
// side cutoff, points stored contiguously by cell), reusing its buffers
// between calls. A pair is a contact when sqrt(dx*dx + dy*dy + dz*dz) <=
// cutoff, exactly as the reference computes it: the grid compares the
// squared distance with sqrtBound(cutoff), which selects the same pairs.
type contactGrid struct {
	start  []int32  // start[c]:start[c+1] are cell c's points in sorted
	sorted []gpt    // points ordered by cell, ascending index within a cell
	cell   []int32  // each point's cell, -1 for non-finite points
	js     []int32  // the per-cell fill cursor while sorting
	pairs  []uint64 // contacts found, i<<32 | j
	tmp    []uint64 // sortPairs's scratch
	count  []int32  // sortPairs's counts
}

// gpt is a point of the grid with its residue number and pool index.
type gpt struct {
	x, y, z float64
	res     int32
	idx     int32
}

// find returns every pair of pool points i < j (pool order) with
// res[j]-res[i] >= minSep and distance <= cutoff, as i<<32 | j in (i, j)
// row-major order. res must be ascending. Points with non-finite
// coordinates never pair. The result aliases g's memory.
func (g *contactGrid) find(pts []geom.Vec3, res []int32, cutoff float64, minSep int32) []uint64 {
	n := len(pts)
	if n < 2 || !(cutoff > 0) || math.IsInf(cutoff, 1) {
		return g.brute(pts, res, cutoff, minSep)
	}
	lo := geom.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := geom.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		if finite(p) {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
			}
		}
	}
	span := 1.0
	for k := range 3 {
		span *= max(hi[k]-lo[k], 0)/cutoff + 1
	}
	if !(span <= float64(64*n+1024)) { // sparse outliers (or none finite): a grid this big costs more than it saves
		return g.brute(pts, res, cutoff, minSep)
	}
	var dim [3]int
	cells := 1
	for k := range 3 {
		dim[k] = int(max(hi[k]-lo[k], 0)/cutoff) + 1
		cells *= dim[k]
	}
	inv := 1 / cutoff
	coord := func(v float64, k int) int { return min(int((v-lo[k])*inv), dim[k]-1) }
	g.start = slices.Grow(g.start[:0], cells+1)[:cells+1]
	clear(g.start)
	g.cell = slices.Grow(g.cell[:0], n)[:n]
	for i, p := range pts {
		if !finite(p) {
			g.cell[i] = -1
			continue
		}
		c := (coord(p[0], 0)*dim[1]+coord(p[1], 1))*dim[2] + coord(p[2], 2)
		g.cell[i] = int32(c)
		g.start[c+1]++
	}
	for c := 1; c <= cells; c++ {
		g.start[c] += g.start[c-1]
	}
	total := int(g.start[cells])
	g.sorted = slices.Grow(g.sorted[:0], total)[:total]
	fill := g.js[:0] // reuse js as the per-cell fill cursor
	fill = slices.Grow(fill, cells)[:cells]
	copy(fill, g.start[:cells])
	for i, c := range g.cell {
		if c >= 0 {
			k := fill[c]
			fill[c]++
			p := &pts[i]
			g.sorted[k] = gpt{x: p[0], y: p[1], z: p[2], res: res[i], idx: int32(i)}
		}
	}
	g.js = fill[:0]
	// Each unordered pair once: a cell's own pairs, then the 13 neighbour
	// cells ahead of it (z+1 in its column, and the 3-cell z runs of the
	// columns (x, y+1), (x+1, y-1..y+1)), which are contiguous in sorted.
	t2 := sqrtBound(cutoff)
	g.pairs = g.pairs[:0]
	st, sorted := g.start, g.sorted
	for x := range dim[0] {
		for y := range dim[1] {
			col := (x*dim[1] + y) * dim[2]
			for z := range dim[2] {
				c := col + z
				from, to := st[c], st[c+1]
				if from == to {
					continue
				}
				own := sorted[from:to]
				g.within(own, t2, minSep)
				if z+1 < dim[2] { // z+1 in the same column
					g.between(own, sorted[to:st[c+2]], t2, minSep)
				}
				z0, z1 := max(z-1, 0), min(z+1, dim[2]-1)
				run := func(nx, ny int) {
					if nx < dim[0] && ny >= 0 && ny < dim[1] {
						base := (nx*dim[1] + ny) * dim[2]
						g.between(own, sorted[st[base+z0]:st[base+z1+1]], t2, minSep)
					}
				}
				run(x, y+1)
				run(x+1, y-1)
				run(x+1, y)
				run(x+1, y+1)
			}
		}
	}
	return g.sortPairs(n)
}

// chain returns the pairs of pool points i < j with minSep <= res[j]-res[i]
// < maxSep and distance <= cutoff (finite and positive), as i<<32 | j in
// (i, j) row-major order: the pairs near in the chain, without a grid. res
// must be ascending. A non-finite point never pairs: its squared distances
// are NaN or +Inf.
func (g *contactGrid) chain(pts []geom.Vec3, res []int32, cutoff float64, minSep, maxSep int32) []uint64 {
	t2 := sqrtBound(cutoff)
	np := 0
	out := g.pairs[:0]
	for i := range pts {
		j := i + 1
		for j < len(pts) && res[j]-res[i] < minSep {
			j++
		}
		e := j
		for e < len(pts) && res[e]-res[i] < maxSep {
			e++
		}
		out = slices.Grow(out[:np], e-j)
		out = out[:cap(out)]
		p := &pts[i]
		for _, q := range pts[j:e] {
			dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
			d2 := float64(dx*dx) + float64(dy*dy) + float64(dz*dz)
			out[np] = uint64(i)<<32 | uint64(j)
			np += b2i(d2 <= t2)
			j++
		}
	}
	g.pairs = out[:np]
	return g.pairs
}

// sqrtBound returns the largest t with math.Sqrt(t) <= c: as sqrt is
// correctly rounded, hence monotone, math.Sqrt(d2) <= c exactly when
// d2 <= sqrtBound(c).
func sqrtBound(c float64) float64 {
	t := c * c
	for t > 0 && math.Sqrt(t) > c {
		t = math.Nextafter(t, 0)
	}
	for {
		u := math.Nextafter(t, math.Inf(1))
		if !(math.Sqrt(u) <= c) {
			return t
		}
		t = u
	}
}

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// within appends the contacts among the points of one cell (ascending idx).
// Every candidate is stored and the count advanced only for contacts, so
// that the loop has no data-dependent branch.
func (g *contactGrid) within(ps []gpt, t2 float64, minSep int32) {
	np := len(g.pairs)
	out := slices.Grow(g.pairs, len(ps)*(len(ps)-1)/2)
	out = out[:cap(out)]
	for a := range ps {
		p := &ps[a]
		for b := a + 1; b < len(ps); b++ {
			q := &ps[b]
			dx, dy, dz := p.x-q.x, p.y-q.y, p.z-q.z
			d2 := float64(dx*dx) + float64(dy*dy) + float64(dz*dz)
			out[np] = uint64(p.idx)<<32 | uint64(q.idx)
			np += b2i(d2 <= t2) & b2i(q.res-p.res >= minSep)
		}
	}
	g.pairs = out[:np]
}

// between appends the contacts between the points of two cells.
func (g *contactGrid) between(ps, qs []gpt, t2 float64, minSep int32) {
	np := len(g.pairs)
	out := slices.Grow(g.pairs, len(ps)*len(qs))
	out = out[:cap(out)]
	for a := range ps {
		p := &ps[a]
		for b := range qs {
			q := &qs[b]
			dx, dy, dz := p.x-q.x, p.y-q.y, p.z-q.z
			d2 := float64(dx*dx) + float64(dy*dy) + float64(dz*dz)
			i, j := min(p.idx, q.idx), max(p.idx, q.idx)
			sep := q.res - p.res
			m := sep >> 31
			out[np] = uint64(i)<<32 | uint64(j)
			np += b2i(d2 <= t2) & b2i((sep^m)-m >= minSep)
		}
	}
	g.pairs = out[:np]
}

// sortPairs orders g.pairs (i<<32 | j, i, j < n) in (i, j) row-major order:
// two stable counting sorts, by j then by i.
func (g *contactGrid) sortPairs(n int) []uint64 {
	ps := g.pairs
	g.tmp = slices.Grow(g.tmp[:0], len(ps))[:len(ps)]
	g.count = slices.Grow(g.count[:0], n+1)[:n+1]
	for _, shift := range [...]uint{0, 32} {
		clear(g.count)
		for _, p := range ps {
			g.count[uint32(p>>shift)+1]++
		}
		for k := 1; k <= n; k++ {
			g.count[k] += g.count[k-1]
		}
		for _, p := range ps {
			k := uint32(p >> shift)
			g.tmp[g.count[k]] = p
			g.count[k]++
		}
		ps, g.tmp = g.tmp, ps
	}
	g.pairs = ps
	return ps
}

// brute is the reference's definition, pair by pair.
func (g *contactGrid) brute(pts []geom.Vec3, res []int32, cutoff float64, minSep int32) []uint64 {
	g.pairs = g.pairs[:0]
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			if res[j]-res[i] < minSep || !finite(pts[i]) || !finite(pts[j]) {
				continue
			}
			p, q := pts[i], pts[j]
			dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
			if math.Sqrt(float64(dx*dx)+float64(dy*dy)+float64(dz*dz)) <= cutoff {
				g.pairs = append(g.pairs, uint64(i)<<32|uint64(j))
			}
		}
	}
	return g.pairs
}

// finite reports whether p's coordinates are all finite (x-x is 0 for a
// finite x, NaN otherwise).
func finite(p geom.Vec3) bool {
	return (p[0]-p[0])+(p[1]-p[1])+(p[2]-p[2]) == 0
}
