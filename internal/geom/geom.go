// Package geom holds small geometry helpers shared by the formats: a 3-vector
// and a cell-list neighbour search that finds every pair of points within a
// cutoff distance in roughly O(N) time for protein-like point clouds.
//
// Everything here is pure and allocation-light; functions are safe for
// concurrent use as long as callers do not mutate the inputs meanwhile.
package geom

import (
	"math"
	"sort"
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
	for i := range pts {
		if !finite(pts[i]) {
			continue
		}
		for j := i + 1; j < len(pts); j++ {
			if !finite(pts[j]) {
				continue
			}
			d := Dist(pts[i], pts[j])
			if d <= cutoff && (keep == nil || keep(i, j)) {
				out = append(out, Pair{I: i, J: j, D: d})
			}
		}
	}
	return out
}

type cellKey struct{ x, y, z int64 }

func cells(pts []Vec3, cutoff float64, keep func(i, j int) bool) []Pair {
	// Cell side slightly larger than the cutoff so that rounding of the
	// floor division can never put two in-range points more than one cell
	// apart.
	side := cutoff * (1 + 1e-9)
	if side == 0 {
		return brute(pts, cutoff, keep)
	}
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
	// Bucket point indices per cell: count, then fill (index lists ascending).
	cellOf := make(map[cellKey]int32, len(pts)/4+1)
	ids := make([]int32, len(pts))
	var counts []int32
	for i, p := range pts {
		ids[i] = -1
		if !finite(p) {
			continue
		}
		k, ok := keyOf(p)
		if !ok {
			continue
		}
		c, seen := cellOf[k]
		if !seen {
			c = int32(len(counts))
			cellOf[k] = c
			counts = append(counts, 0)
		}
		ids[i] = c
		counts[c]++
	}
	start := make([]int32, len(counts)+1)
	for c, n := range counts {
		start[c+1] = start[c] + n
	}
	members := make([]int32, len(pts))
	fill := append([]int32(nil), start[:len(counts)]...)
	for i, c := range ids {
		if c < 0 {
			continue
		}
		members[fill[c]] = int32(i)
		fill[c]++
	}
	var out []Pair
	for i, p := range pts {
		if ids[i] < 0 {
			continue
		}
		k, _ := keyOf(p)
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					c, ok := cellOf[cellKey{k.x + dx, k.y + dy, k.z + dz}]
					if !ok {
						continue
					}
					for _, j32 := range members[start[c]:start[c+1]] {
						j := int(j32)
						if j <= i {
							continue
						}
						d := Dist(p, pts[j])
						if d <= cutoff && (keep == nil || keep(i, j)) {
							out = append(out, Pair{I: i, J: j, D: d})
						}
					}
				}
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].I != out[b].I {
			return out[a].I < out[b].I
		}
		return out[a].J < out[b].J
	})
	return out
}
