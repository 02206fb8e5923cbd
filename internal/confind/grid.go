package confind

import "math"

// grid is a uniform cell grid over a set of points (compressed rows: the
// points of cell c are items[start[c]:start[c+1]]), for fixed-radius
// neighbour queries with a radius no larger than the cell size.
type grid struct {
	lo         vec
	cell       float64
	nx, ny, nz int
	inv        float64 // 1/cell
	start      []int32
	items      []int32 // point indices, cell by cell
	pts        []vec   // the points in items order
	cellIx     []int32
}

// build makes g the grid of pts with cells of at least minCell (reusing
// g's memory); cells grow when the box would need more than about 8 cells
// per point, so memory stays linear in the point count whatever the spread
// of the structure. The points of a cell are in ascending index order.
func (g *grid) build(pts []vec, minCell float64) {
	g.cell = minCell
	g.inv = 1 / g.cell
	if len(pts) == 0 {
		g.nx, g.ny, g.nz = 1, 1, 1
		g.start = resize(g.start, 2, true)
		g.items = g.items[:0]
		return
	}
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		for d := 0; d < 3; d++ {
			lo[d] = math.Min(lo[d], p[d])
			hi[d] = math.Max(hi[d], p[d])
		}
	}
	g.lo = lo
	for {
		g.nx = int((hi[0]-lo[0])/g.cell) + 1
		g.ny = int((hi[1]-lo[1])/g.cell) + 1
		g.nz = int((hi[2]-lo[2])/g.cell) + 1
		if g.nx*g.ny*g.nz <= 8*len(pts)+64 {
			break
		}
		g.cell *= 1.5
	}
	g.inv = 1 / g.cell
	n := g.nx * g.ny * g.nz
	g.start = resize(g.start, n+1, true)
	g.cellIx = resize(g.cellIx, len(pts), false)
	for i, p := range pts {
		c := g.cellOf(p)
		g.cellIx[i] = int32(c)
		g.start[c+1]++
	}
	for c := 0; c < n; c++ {
		g.start[c+1] += g.start[c]
	}
	g.items = resize(g.items, len(pts), false)
	g.pts = resize(g.pts, len(pts), false)
	// Fill back to front so every cell ends up in ascending index order.
	for i := len(pts) - 1; i >= 0; i-- {
		c := g.cellIx[i]
		g.start[c+1]--
		k := g.start[c+1]
		g.items[k] = int32(i)
		g.pts[k] = pts[i]
	}
	// start[c+1] now holds the start of cell c: shift back.
	copy(g.start, g.start[1:])
	g.start[n] = int32(len(pts))
}

func (g *grid) coord(v, lo float64, n int) int {
	// The same monotonic formula for points and queries, so a query's
	// cell range covers every point within its radius.
	i := int((v - lo) * g.inv)
	if i < 0 {
		return 0
	}
	if i >= n {
		return n - 1
	}
	return i
}

func (g *grid) cellOf(p vec) int {
	return (g.coord(p[0], g.lo[0], g.nx)*g.ny+g.coord(p[1], g.lo[1], g.ny))*g.nz + g.coord(p[2], g.lo[2], g.nz)
}

// dist2 is (dx*dx + dy*dy) + dz*dz without fused multiply-adds, the
// squared distance pyconfind compares with the squared cutoff.
func dist2(a, b vec) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return float64(float64(dx*dx)+float64(dy*dy)) + float64(dz*dz)
}

// cellRange is one run of grid cells along z: cells base+z0 .. base+z1.
type cellRange struct{ base, z0, z1 int }

// span is within's cell ranges per axis: x0..x1, y0..y1, z0..z1.
func (g *grid) span(p vec, r float64) (x0, x1, y0, y1, z0, z1 int) {
	r += 1e-9
	return g.coord(p[0]-r, g.lo[0], g.nx), g.coord(p[0]+r, g.lo[0], g.nx),
		g.coord(p[1]-r, g.lo[1], g.ny), g.coord(p[1]+r, g.lo[1], g.ny),
		g.coord(p[2]-r, g.lo[2], g.nz), g.coord(p[2]+r, g.lo[2], g.nz)
}

// within appends the cell runs that can hold points within r of p: per
// axis the cells from p-r to p+r (two or three when r is the cell size).
func (g *grid) within(dst []cellRange, p vec, r float64) []cellRange {
	r += 1e-9 // a point at distance r whose coordinate rounds past p+r
	x0, x1 := g.coord(p[0]-r, g.lo[0], g.nx), g.coord(p[0]+r, g.lo[0], g.nx)
	y0, y1 := g.coord(p[1]-r, g.lo[1], g.ny), g.coord(p[1]+r, g.lo[1], g.ny)
	z0, z1 := g.coord(p[2]-r, g.lo[2], g.nz), g.coord(p[2]+r, g.lo[2], g.nz)
	for i := x0; i <= x1; i++ {
		for j := y0; j <= y1; j++ {
			dst = append(dst, cellRange{(i*g.ny + j) * g.nz, z0, z1})
		}
	}
	return dst
}
