// Package geom holds small geometry helpers shared by the formats: a 3-vector
// and a cell-list neighbour search that finds every pair of points within a
// cutoff distance in roughly O(N) time for protein-like point clouds.
//
// Everything here is pure and allocation-light; functions are safe for
// concurrent use as long as callers do not mutate the inputs meanwhile.
package geom

import (
	"math"
	"slices"
)

// Vec3 is a point or vector in Å.
type Vec3 [3]float64

// Dist returns the Euclidean distance between a and b, computed as
// math.Sqrt(dx*dx+dy*dy+dz*dz) in float64.
func Dist(a, b Vec3) float64 {
	dx := a[0] - b[0]
	dy := a[1] - b[1]
	dz := a[2] - b[2]
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// Pair is one pair of point indices (I < J) and their distance D.
type Pair struct {
	I, J int
	D    float64
}

// bruteLimit is the point count below which Pairs compares every pair
// directly; the cell list only pays off for larger inputs.
const bruteLimit = 64

// Pairs returns every pair i<j of pts with keep(i, j) true (keep may be nil:
// keep all) and D = math.Sqrt(dx*dx+dy*dy+dz*dz) <= cutoff (inclusive;
// callers needing a strict < filter the result). The result is sorted by
// (I, J). Points with a non-finite coordinate never pair. A cutoff that is
// negative or NaN yields no pairs.
//
// For large N it bins points into cubic cells of side cutoff and compares
// only points in neighbouring cells, so the time is O(N + pairs) for
// bounded-density inputs such as atoms of a protein.
func Pairs(pts []Vec3, cutoff float64, keep func(i, j int) bool) []Pair {
	if !(cutoff >= 0) || len(pts) < 2 {
		return nil
	}
	if len(pts) <= bruteLimit || math.IsInf(cutoff, 1) || cutoff == 0 {
		return brute(pts, cutoff, keep)
	}
	return cells(pts, cutoff, keep)
}

// within is Dist(a, b) <= cutoff, with d = Dist(a, b): the square root is
// taken only for pairs whose squared distance is not above limit
// (sqLimit(cutoff)), so farther pairs cost three products.
func within(a, b Vec3, cutoff, limit float64) (d float64, ok bool) {
	dx := a[0] - b[0]
	dy := a[1] - b[1]
	dz := a[2] - b[2]
	d2 := dx*dx + dy*dy + dz*dz
	if d2 > limit {
		return 0, false
	}
	d = math.Sqrt(d2)
	return d, d <= cutoff
}

// sqLimit is a squared distance above which Dist is surely above cutoff:
// cutoff² with a relative margin far wider than the rounding of d2 and of
// the square root (a few ulps), so the exact test d <= cutoff decides every
// pair near the cutoff; no limit for a cutoff whose square would lose its
// relative precision (subnormal).
func sqLimit(cutoff float64) float64 {
	if cutoff < 1e-100 {
		return math.Inf(1)
	}
	return cutoff * cutoff * (1 + 1e-9)
}

func finite(p Vec3) bool {
	for _, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func brute(pts []Vec3, cutoff float64, keep func(i, j int) bool) []Pair {
	var out []Pair
	limit := sqLimit(cutoff)
	for i := range pts {
		if !finite(pts[i]) {
			continue
		}
		for j := i + 1; j < len(pts); j++ {
			if !finite(pts[j]) {
				continue
			}
			if d, ok := within(pts[i], pts[j], cutoff, limit); ok && (keep == nil || keep(i, j)) {
				out = append(out, Pair{I: i, J: j, D: d})
			}
		}
	}
	return out
}

// cells bins the points into a dense grid of cubic cells of side
// slightly above cutoff (so that floor rounding can never separate two
// in-range points by more than one cell) and compares each point with the
// points of its own and the 26 neighbouring cells, keeping j > i.
// When the bounding box would need far more cells than points (sparse
// outliers), it falls back to a hash of occupied cells.
func cells(pts []Vec3, cutoff float64, keep func(i, j int) bool) []Pair {
	side := cutoff * (1 + 1e-9)
	lo := Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	nFinite := 0
	for _, p := range pts {
		if !finite(p) {
			continue
		}
		nFinite++
		for d := 0; d < 3; d++ {
			lo[d] = math.Min(lo[d], p[d])
			hi[d] = math.Max(hi[d], p[d])
		}
	}
	if nFinite < 2 {
		return nil
	}
	var dim [3]int
	total := 1.0
	for d := 0; d < 3; d++ {
		n := math.Floor((hi[d]-lo[d])/side) + 1
		if !(n < 1<<20) {
			return sparseCells(pts, side, cutoff, keep)
		}
		dim[d] = int(n)
		total *= n
	}
	if total > float64(32*len(pts)+1<<16) {
		return sparseCells(pts, side, cutoff, keep)
	}
	ncell := dim[0] * dim[1] * dim[2]
	cellOf := make([]int32, len(pts))
	start := make([]int32, ncell+1)
	for i, p := range pts {
		if !finite(p) {
			cellOf[i] = -1
			continue
		}
		x := min(int((p[0]-lo[0])/side), dim[0]-1)
		y := min(int((p[1]-lo[1])/side), dim[1]-1)
		z := min(int((p[2]-lo[2])/side), dim[2]-1)
		c := int32((x*dim[1]+y)*dim[2] + z)
		cellOf[i] = c
		start[c+1]++
	}
	for c := 0; c < ncell; c++ {
		start[c+1] += start[c]
	}
	members := make([]int32, nFinite)
	fill := append([]int32(nil), start[:ncell]...)
	for i, c := range cellOf {
		if c >= 0 {
			members[fill[c]] = int32(i)
			fill[c]++
		}
	}
	out := make([]Pair, 0, 4*nFinite) // protein residues at 8 Å: 2-4 pairs each
	limit := sqLimit(cutoff)
	for i, p := range pts {
		c := int(cellOf[i])
		if c < 0 {
			continue
		}
		z := c % dim[2]
		y := (c / dim[2]) % dim[1]
		x := c / (dim[1] * dim[2])
		segStart := len(out)
		for dx := max(x-1, 0); dx <= min(x+1, dim[0]-1); dx++ {
			for dy := max(y-1, 0); dy <= min(y+1, dim[1]-1); dy++ {
				base := (dx*dim[1] + dy) * dim[2]
				// the z neighbours are adjacent cells: one contiguous run
				c0, c1 := base+max(z-1, 0), base+min(z+1, dim[2]-1)
				for _, j32 := range members[start[c0]:start[c1+1]] {
					j := int(j32)
					if j <= i {
						continue
					}
					if d, ok := within(p, pts[j], cutoff, limit); ok && (keep == nil || keep(i, j)) {
						out = append(out, Pair{I: i, J: j, D: d})
					}
				}
			}
		}
		seg := out[segStart:]
		slices.SortFunc(seg, func(a, b Pair) int { return a.J - b.J })
	}
	return out
}

type cellKey struct{ x, y, z int64 }

// sparseCells is the hashed variant of cells for point sets whose bounding
// box is mostly empty.
func sparseCells(pts []Vec3, side, cutoff float64, keep func(i, j int) bool) []Pair {
	keyOf := func(p Vec3) (cellKey, bool) {
		var k [3]int64
		for d := 0; d < 3; d++ {
			f := math.Floor(p[d] / side)
			if math.IsNaN(f) || math.Abs(f) > 1<<52 {
				return cellKey{}, false
			}
			k[d] = int64(f)
		}
		return cellKey{k[0], k[1], k[2]}, true
	}
	cellOf := make(map[cellKey][]int32, len(pts)/4+1)
	for i, p := range pts {
		if !finite(p) {
			continue
		}
		k, ok := keyOf(p)
		if !ok {
			// astronomically large coordinates: no cell index fits
			return brute(pts, cutoff, keep)
		}
		cellOf[k] = append(cellOf[k], int32(i))
	}
	var out []Pair
	limit := sqLimit(cutoff)
	for i, p := range pts {
		if !finite(p) {
			continue
		}
		k, ok := keyOf(p)
		if !ok {
			continue
		}
		segStart := len(out)
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					for _, j32 := range cellOf[cellKey{k.x + dx, k.y + dy, k.z + dz}] {
						j := int(j32)
						if j <= i {
							continue
						}
						if d, ok := within(p, pts[j], cutoff, limit); ok && (keep == nil || keep(i, j)) {
							out = append(out, Pair{I: i, J: j, D: d})
						}
					}
				}
			}
		}
		seg := out[segStart:]
		slices.SortFunc(seg, func(a, b Pair) int { return a.J - b.J })
	}
	return out
}
