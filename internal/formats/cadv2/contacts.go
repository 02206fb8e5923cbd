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
	js     []int32     // partners of the current point
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
	c2 := cutoff * cutoff * (1 + 1e-9)
	for i := range n {
		if g.cell[i] < 0 {
			continue
		}
		p := pts[i]
		ri := res[i]
		cx, cy, cz := coord(p[0], 0), coord(p[1], 1), coord(p[2], 2)
		z0, z1 := max(cz-1, 0), min(cz+1, dim[2]-1)
		g.js = g.js[:0]
		for x := max(cx-1, 0); x <= min(cx+1, dim[0]-1); x++ {
			for y := max(cy-1, 0); y <= min(cy+1, dim[1]-1); y++ {
				base := (x*dim[1] + y) * dim[2]
				from, to := g.start[base+z0], g.start[base+z1+1]
				for k := from; k < to; k++ {
					j := g.sidx[k]
					if int(j) <= i || res[j]-ri < minSep {
						continue
					}
					q := &g.sorted[k]
					dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
					d2 := float64(dx*dx) + float64(dy*dy) + float64(dz*dz)
					if d2 <= c2 && math.Sqrt(d2) <= cutoff {
						g.js = append(g.js, j)
					}
				}
			}
		}
		slices.Sort(g.js)
		for _, j := range g.js {
			emit(int32(i), j)
		}
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
