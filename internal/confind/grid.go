package confind

import "math"

// grid is a uniform cell grid over a set of points (compressed rows: the
// points of cell c are items[start[c]:start[c+1]]), for fixed-radius
// neighbour queries with a radius no larger than the cell size.
type grid struct {
	lo         vec
	cell       float64
	nx, ny, nz int
	start      []int32
	items      []int32
}

// newGrid builds the grid of pts with cells of at least minCell; cells grow
// when the box would need more than about 8 cells per point, so memory
// stays linear in the point count whatever the spread of the structure.
func newGrid(pts []vec, minCell float64) *grid {
	g := &grid{cell: minCell}
	if len(pts) == 0 {
		g.nx, g.ny, g.nz = 1, 1, 1
		g.start = make([]int32, 2)
		return g
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
	n := g.nx * g.ny * g.nz
	g.start = make([]int32, n+1)
	cells := make([]int32, len(pts))
	for i, p := range pts {
		c := g.cellOf(p)
		cells[i] = int32(c)
		g.start[c+1]++
	}
	for c := 0; c < n; c++ {
		g.start[c+1] += g.start[c]
	}
	fill := make([]int32, n)
	copy(fill, g.start[:n])
	g.items = make([]int32, len(pts))
	for i, c := range cells {
		g.items[fill[c]] = int32(i)
		fill[c]++
	}
	return g
}

func (g *grid) coord(v, lo float64, n int) int {
	i := int((v - lo) / g.cell)
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

// around appends the cell runs within one cell of p's cell.
func (g *grid) around(dst []cellRange, p vec) []cellRange {
	x, y, z := g.coord(p[0], g.lo[0], g.nx), g.coord(p[1], g.lo[1], g.ny), g.coord(p[2], g.lo[2], g.nz)
	z0, z1 := max(z-1, 0), min(z+1, g.nz-1)
	for i := max(x-1, 0); i <= min(x+1, g.nx-1); i++ {
		for j := max(y-1, 0); j <= min(y+1, g.ny-1); j++ {
			dst = append(dst, cellRange{(i*g.ny + j) * g.nz, z0, z1})
		}
	}
	return dst
}

// linkedGrid is a grid whose points are inserted one at a time (per cell a
// singly linked list: head[cell], next[point]).
type linkedGrid struct {
	grid
	head []int32
	next []int32
}

// newLinkedGrid sizes a grid for pts (as newGrid) with no point inserted.
func newLinkedGrid(pts []vec, minCell float64) *linkedGrid {
	g := &linkedGrid{}
	g.cell = minCell
	if len(pts) == 0 {
		g.nx, g.ny, g.nz = 1, 1, 1
	} else {
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
	}
	g.head = make([]int32, g.nx*g.ny*g.nz)
	for i := range g.head {
		g.head[i] = -1
	}
	g.next = make([]int32, len(pts))
	return g
}

func (g *linkedGrid) insert(i int32, p vec) {
	c := g.cellOf(p)
	g.next[i] = g.head[c]
	g.head[c] = i
}
