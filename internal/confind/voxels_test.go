package confind

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVoxelsConservative checks the clash map against the exact test on
// random backbones and atoms: an atom the map clears never clashes, and
// the map clears most atoms far from other positions (it is a filter
// worth having). It includes points on voxel faces and at exactly the
// clash distance of an obstacle, and non-finite coordinates.
func TestVoxelsConservative(t *testing.T) {
	const clash = 2.0
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		var obst []vec
		var obstPos []int32
		npos := 5 + rng.IntN(40)
		for p := 0; p < npos; p++ {
			c := vec{rng.Float64() * 30, rng.Float64() * 30, rng.Float64() * 30}
			for k := 0; k < 4; k++ {
				obst = append(obst, vec{c[0] + rng.NormFloat64(), c[1] + rng.NormFloat64(), c[2] + rng.NormFloat64()})
				obstPos = append(obstPos, int32(p))
			}
		}
		var g grid
		g.build(obst, clash)
		tag := make([]int32, len(g.items))
		for q, o := range g.items {
			tag[q] = obstPos[o]
		}
		var v voxels
		v.build(obst, obstPos, clash)
		exact := pruner{g: &g, vox: &voxels{off: true}, tag: tag, clash: clash, c2: clash * clash}
		cleared, free := 0, 0
		check := func(x vec, pos int32) {
			var pc []int32
			hit := exact.test(x, pos, true, &pc)
			if !hit {
				free++
			}
			if v.clear(x, pos) {
				cleared++
				if hit {
					t.Fatalf("trial %d: atom %v of position %d cleared by the map, but it clashes with %v", trial, x, pos, pc)
				}
			}
		}
		for n := 0; n < 4000; n++ {
			x := vec{rng.Float64()*40 - 5, rng.Float64()*40 - 5, rng.Float64()*40 - 5}
			check(x, int32(rng.IntN(npos)))
			// on a voxel corner
			check(vec{v.lo[0] + math.Floor(x[0]-v.lo[0]), v.lo[1] + math.Floor(x[1]-v.lo[1]), v.lo[2] + math.Floor(x[2]-v.lo[2])}, int32(rng.IntN(npos)))
			// at exactly the clash distance along an axis
			o := rng.IntN(len(obst))
			y := obst[o]
			y[rng.IntN(3)] += clash
			check(y, int32(rng.IntN(npos)))
		}
		check(vec{math.NaN(), 1, 1}, 0)
		check(vec{math.Inf(1), 1, 1}, 0)
		if cleared < free/2 {
			t.Fatalf("trial %d: the map cleared %d of %d clash-free atoms", trial, cleared, free)
		}
	}
	// A non-finite obstacle turns the map off: the exact test decides.
	var v voxels
	v.build([]vec{{0, 0, 0}, {math.NaN(), 0, 0}}, []int32{0, 1}, clash)
	if v.clear(vec{50, 50, 50}, 0) {
		t.Fatal("the map of a NaN obstacle cleared an atom")
	}
}
