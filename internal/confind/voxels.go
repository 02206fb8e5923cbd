package confind

import "math"

// voxels is a fine occupancy map of the backbone obstacles for the clash
// test: each voxel holds 0 when no obstacle is within the clash distance
// of any point of it, p+1 when only obstacles of position p can be, and -1
// otherwise. An atom in a voxel holding 0 or its own position's label has
// no clash, which the exact test (pruner.test) would also find; the map
// only spares it the grid scan. It is conservative by a margin far above
// the rounding of the index computation.
type voxels struct {
	lo         vec
	size, inv  float64
	nx, ny, nz int
	lab        []int32
	off        bool // no map: every atom goes to the exact test
}

// voxMargin widens every marked neighbourhood (Å), far beyond the
// rounding of a coordinate's voxel index.
const voxMargin = 1e-6

// build maps obstacles obst of positions obstPos for clash distance r, in
// voxels of 1 Å, larger when the box would need more than about 256
// voxels per obstacle (memory linear in the obstacle count).
func (v *voxels) build(obst []vec, obstPos []int32, r float64) {
	v.off = true
	if len(obst) == 0 {
		return
	}
	lo, hi := obst[0], obst[0]
	for _, p := range obst {
		for d := 0; d < 3; d++ {
			lo[d] = math.Min(lo[d], p[d])
			hi[d] = math.Max(hi[d], p[d])
		}
	}
	for d := 0; d < 3; d++ {
		if math.IsNaN(lo[d]) || math.IsInf(lo[d], 0) || math.IsNaN(hi[d]) || math.IsInf(hi[d], 0) {
			return // a non-finite obstacle: the exact test's semantics only
		}
	}
	v.off = false
	reach := r + voxMargin
	for d := 0; d < 3; d++ {
		lo[d] -= reach
		hi[d] += reach
	}
	v.lo, v.size = lo, 1.0
	for {
		v.nx = int((hi[0]-lo[0])/v.size) + 1
		v.ny = int((hi[1]-lo[1])/v.size) + 1
		v.nz = int((hi[2]-lo[2])/v.size) + 1
		if v.nx*v.ny*v.nz <= 256*len(obst)+65536 {
			break
		}
		v.size *= 1.5
	}
	v.inv = 1 / v.size
	v.lab = resize(v.lab, v.nx*v.ny*v.nz, true)
	r2 := reach * reach
	for n, o := range obst {
		label := obstPos[n] + 1
		var i0, i1 [3]int
		for d, nd := range [3]int{v.nx, v.ny, v.nz} {
			i0[d] = max(int((o[d]-reach-lo[d])*v.inv), 0)
			i1[d] = min(int((o[d]+reach-lo[d])*v.inv), nd-1)
		}
		for ix := i0[0]; ix <= i1[0]; ix++ {
			dx := axisGap(o[0], lo[0]+float64(ix)*v.size, v.size)
			for iy := i0[1]; iy <= i1[1]; iy++ {
				dy := axisGap(o[1], lo[1]+float64(iy)*v.size, v.size)
				dxy := dx*dx + dy*dy
				if dxy > r2 {
					continue
				}
				row := v.lab[(ix*v.ny+iy)*v.nz:]
				for iz := i0[2]; iz <= i1[2]; iz++ {
					dz := axisGap(o[2], lo[2]+float64(iz)*v.size, v.size)
					if dxy+dz*dz > r2 {
						continue
					}
					switch l := row[iz]; l {
					case 0:
						row[iz] = label
					case label, -1:
					default:
						row[iz] = -1
					}
				}
			}
		}
	}
}

// axisGap is the distance from c to the interval [s, s+w] on one axis.
func axisGap(c, s, w float64) float64 {
	switch {
	case c < s:
		return s - c
	case c > s+w:
		return c - (s + w)
	}
	return 0
}

// clear reports whether x certainly has no obstacle of a position other
// than pos within the clash distance; false means the exact test decides.
func (v *voxels) clear(x vec, pos int32) bool {
	if v.off {
		return false
	}
	fx, fy, fz := (x[0]-v.lo[0])*v.inv, (x[1]-v.lo[1])*v.inv, (x[2]-v.lo[2])*v.inv
	if !(fx >= 0 && fy >= 0 && fz >= 0 && fx < float64(v.nx) && fy < float64(v.ny) && fz < float64(v.nz)) {
		// outside the map (far from every obstacle), or NaN: the exact
		// test decides, as it does for a NaN coordinate
		return fx == fx && fy == fy && fz == fz
	}
	l := v.lab[(int(fx)*v.ny+int(fy))*v.nz+int(fz)]
	return l == 0 || l == pos+1
}
