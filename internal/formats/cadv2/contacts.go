package cadv2

import (
	"math"
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/geom"
)

// contactGrid finds the pool's contacts with a dense cell grid (cells of
// side cutoff, points stored contiguously by cell), reusing its buffers
// between calls. Distances are computed as sqrt(dx*dx + dy*dy + dz*dz) <=
// cutoff exactly as the reference does; the squared distance is only a
// pre-filter.
type contactGrid struct {
	start  []int32     // start[c]:start[c+1] are cell c's points in sorted
	sorted []geom.Vec3 // points ordered by cell, ascending index within a cell
	sidx   []int32     // pool index of each sorted point
	cell   []int32     // each point's cell, -1 for non-finite points
	js     []int32     // the per-cell fill cursor while sorting
	pairs  []uint64    // contacts found, i<<32 | j
	tmp    []uint64    // emitSorted's scratch
	count  []int32     // emitSorted's counts
}

// find calls emit(i, j) for every pair of pool points i < j (pool order)
// with res[j]-res[i] >= minSep and distance <= cutoff, in (i, j) row-major
// order. Points with non-finite coordinates never pair.
func (g *contactGrid) find(pts []geom.Vec3, res []int32, cutoff float64, minSep int32, emit func(i, j int32)) {
	n := len(pts)
	if n < 2 || !(cutoff > 0) || math.IsInf(cutoff, 1) {
		brute(pts, res, cutoff, minSep, emit)
		return
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
		brute(pts, res, cutoff, minSep, emit)
		return
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
	g.sidx = slices.Grow(g.sidx[:0], total)[:total]
	fill := g.js[:0] // reuse js as the per-cell fill cursor
	fill = slices.Grow(fill, cells)[:cells]
	copy(fill, g.start[:cells])
	for i, c := range g.cell {
		if c >= 0 {
			k := fill[c]
			fill[c]++
			g.sorted[k], g.sidx[k] = pts[i], int32(i)
		}
	}
	g.js = fill[:0]
	// Each unordered pair once: a cell's own pairs, then the 13 neighbour
	// cells ahead of it (z+1 in its column, and the 3-cell z runs of the
	// columns (x, y+1), (x+1, y-1..y+1)), which are contiguous in sorted.
	c2 := cutoff * cutoff * (1 + 1e-9)
	g.pairs = g.pairs[:0]
	check := func(a, b int32) {
		// distance first: most neighbour-cell pairs are out of range
		p, q := &g.sorted[a], &g.sorted[b]
		dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
		d2 := float64(dx*dx) + float64(dy*dy) + float64(dz*dz)
		if !(d2 <= c2) {
			return
		}
		i, j := g.sidx[a], g.sidx[b]
		if i > j {
			i, j = j, i
		}
		if res[j]-res[i] >= minSep && math.Sqrt(d2) <= cutoff {
			g.pairs = append(g.pairs, uint64(i)<<32|uint64(j))
		}
	}
	for x := range dim[0] {
		for y := range dim[1] {
			col := (x*dim[1] + y) * dim[2]
			for z := range dim[2] {
				c := col + z
				from, to := g.start[c], g.start[c+1]
				if from == to {
					continue
				}
				for a := from; a < to; a++ {
					for b := a + 1; b < to; b++ {
						check(a, b)
					}
				}
				// z+1 in the same column
				if z+1 < dim[2] {
					for a := from; a < to; a++ {
						for b := g.start[c+1]; b < g.start[c+2]; b++ {
							check(a, b)
						}
					}
				}
				z0, z1 := max(z-1, 0), min(z+1, dim[2]-1)
				run := func(nx, ny int) {
					if nx >= dim[0] || ny < 0 || ny >= dim[1] {
						return
					}
					base := (nx*dim[1] + ny) * dim[2]
					lo, hi := g.start[base+z0], g.start[base+z1+1]
					for a := from; a < to; a++ {
						for b := lo; b < hi; b++ {
							check(a, b)
						}
					}
				}
				run(x, y+1)
				run(x+1, y-1)
				run(x+1, y)
				run(x+1, y+1)
			}
		}
	}
	g.emitSorted(n, emit)
}

// emitSorted emits g.pairs (i<<32 | j) in (i, j) row-major order: two
// stable counting sorts, by j then by i.
func (g *contactGrid) emitSorted(n int, emit func(i, j int32)) {
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
	for _, p := range ps {
		emit(int32(p>>32), int32(uint32(p)))
	}
}

func brute(pts []geom.Vec3, res []int32, cutoff float64, minSep int32, emit func(i, j int32)) {
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			if res[j]-res[i] < minSep || !finite(pts[i]) || !finite(pts[j]) {
				continue
			}
			p, q := pts[i], pts[j]
			dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
			if math.Sqrt(float64(dx*dx)+float64(dy*dy)+float64(dz*dz)) <= cutoff {
				emit(int32(i), int32(j))
			}
		}
	}
}

func finite(p geom.Vec3) bool {
	s := p[0] + p[1] + p[2]
	return !math.IsNaN(s) && !math.IsInf(s, 0)
}
