package curation

import (
	"math"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// clashingAtomCounts is exp222's clashing_atom_counts on gemmi 0.7.5: per
// chain name, how many of its atoms have an atom of another chain of the
// model closer than ClashDistance (float64 dx*dx + dy*dy + dz*dz <
// 1.7*1.7 on the atoms' own coordinates, no unit cell, so no crystal
// images), each atom counted once. Atoms of negative occupancy take no
// part (ContactSearch's min_occupancy 0). Every chain of the cleaned model
// counts, protein or not.
//
// Atoms are binned in a grid of cells a little wider than 1.7 A (so that
// a clashing pair is always in neighbouring cells whatever the rounding),
// laid out by counting sort; the distance test on each pair is exact.
func clashingAtomCounts(m *structure.Model) map[string]int {
	if len(m.Chains) < 2 {
		return make(map[string]int)
	}
	atoms, chainOf, lo, hi := clashAtoms(m)
	if len(atoms) == 0 {
		return make(map[string]int)
	}
	const cell = ClashDistance * 1.001
	var dim [3]int
	cells := 1
	for d := range dim {
		dim[d] = int((hi[d]-lo[d])/cell) + 1
		if cells > (64<<20)/dim[d] {
			cells = -1
			break
		}
		cells *= dim[d]
	}
	if cells < 0 || cells > 16*len(atoms)+(1<<20) {
		// A sparse model (copies far apart): bin by hashing instead.
		return clashCountsSparse(m, atoms, chainOf, lo)
	}
	cellOf := func(a *structure.Atom) (int, int, int) {
		return int((a.X - lo[0]) / cell), int((a.Y - lo[1]) / cell), int((a.Z - lo[2]) / cell)
	}
	start := make([]int32, cells+1)
	idx := make([]int32, len(atoms))
	for i, a := range atoms {
		x, y, z := cellOf(a)
		c := (x*dim[1]+y)*dim[2] + z
		idx[i] = int32(c)
		start[c+1]++
	}
	for c := 1; c <= cells; c++ {
		start[c] += start[c-1]
	}
	order := make([]int32, len(atoms))
	fill := append([]int32(nil), start[:cells]...)
	for i, c := range idx {
		order[fill[c]] = int32(i)
		fill[c]++
	}
	r2 := ClashDistanceSquared()
	clashes := make([]bool, len(atoms))
	for i, a := range atoms {
		x, y, z := cellOf(a)
		for nx := max(x-1, 0); nx <= min(x+1, dim[0]-1); nx++ {
			for ny := max(y-1, 0); ny <= min(y+1, dim[1]-1); ny++ {
				for nz := max(z-1, 0); nz <= min(z+1, dim[2]-1); nz++ {
					c := (nx*dim[1]+ny)*dim[2] + nz
					for _, j := range order[start[c]:start[c+1]] {
						if int(j) <= i || chainOf[j] == chainOf[i] {
							continue
						}
						if within(a, atoms[j], r2) {
							clashes[i], clashes[j] = true, true
						}
					}
				}
			}
		}
	}
	return countClashes(m, clashes, chainOf)
}

// clashAtoms lists the atoms that take part in the clash search, their
// chains, and their bounding box.
func clashAtoms(m *structure.Model) (atoms []*structure.Atom, chainOf []int32, lo, hi [3]float64) {
	lo = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for ci := range m.Chains {
		for ri := range m.Chains[ci].Residues {
			r := &m.Chains[ci].Residues[ri]
			for k := range r.Atoms {
				a := &r.Atoms[k]
				if a.Occ < 0 || math.IsNaN(a.X+a.Y+a.Z) || math.IsInf(a.X+a.Y+a.Z, 0) {
					continue // negative occupancy (gemmi skips it); a NaN position is never near
				}
				atoms = append(atoms, a)
				chainOf = append(chainOf, int32(ci))
				for d, v := range [3]float64{a.X, a.Y, a.Z} {
					lo[d], hi[d] = math.Min(lo[d], v), math.Max(hi[d], v)
				}
			}
		}
	}
	return atoms, chainOf, lo, hi
}

// countClashes counts the clashing atoms by chain name.
func countClashes(m *structure.Model, clashes []bool, chainOf []int32) map[string]int {
	counts := make(map[string]int)
	for i, c := range clashes {
		if c {
			counts[m.Chains[chainOf[i]].Name]++
		}
	}
	return counts
}

// within is gemmi's Position::dist_sq(p) < r2, summed in its order.
func within(a, b *structure.Atom, r2 float64) bool {
	dx, dy, dz := b.X-a.X, b.Y-a.Y, b.Z-a.Z
	return float64(float64(dx*dx)+float64(dy*dy))+float64(dz*dz) < r2
}

// clashCountsSparse is clashingAtomCounts' search with cells in a map.
func clashCountsSparse(m *structure.Model, atoms []*structure.Atom, chainOf []int32, lo [3]float64) map[string]int {
	const cell = ClashDistance * 1.001
	type key [3]int32
	cellOf := func(a *structure.Atom) key {
		return key{int32((a.X - lo[0]) / cell), int32((a.Y - lo[1]) / cell), int32((a.Z - lo[2]) / cell)}
	}
	head := make(map[key]int32, len(atoms))
	next := make([]int32, len(atoms))
	for i, a := range atoms {
		k := cellOf(a)
		if h, ok := head[k]; ok {
			next[i] = h
		} else {
			next[i] = -1
		}
		head[k] = int32(i)
	}
	r2 := ClashDistanceSquared()
	clashes := make([]bool, len(atoms))
	for i, a := range atoms {
		k := cellOf(a)
		for dx := int32(-1); dx <= 1; dx++ {
			for dy := int32(-1); dy <= 1; dy++ {
				for dz := int32(-1); dz <= 1; dz++ {
					h, ok := head[key{k[0] + dx, k[1] + dy, k[2] + dz}]
					if !ok {
						continue
					}
					for j := h; j >= 0; j = next[j] {
						if j <= int32(i) || chainOf[j] == chainOf[i] {
							continue
						}
						if within(a, atoms[j], r2) {
							clashes[i], clashes[j] = true, true
						}
					}
				}
			}
		}
	}
	return countClashes(m, clashes, chainOf)
}

// ClashDistanceSquared is gemmi's sq(1.7): the float64 product 1.7*1.7
// (0x1.71eb851eb851ep+1), not the constant 2.89 rounded.
func ClashDistanceSquared() float64 {
	d := float64(ClashDistance)
	return d * d
}
