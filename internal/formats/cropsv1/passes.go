package cropsv1

import (
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// pass1 writes the coarse boxes: while a 4-token mention fits cap1, one
// atom drawn with weight 1/(1 + draws of its residue so far) (one random()
// against the sequential prefix sums), three Gaussians(Pass1Sigma), and the
// noised point's box. It returns the tokens used.
func pass1(f *coordfront.Front, cfg Config, cap1 int, w *coordfront.Writer, d *Document) int {
	m := len(f.Placed)
	if m == 0 {
		return 0
	}
	pick := newPicker(f.Atoms.Res, f.L)
	used := 0
	for used+pass1Mention <= cap1 {
		idx := pick.draw(f.Rand)
		p := f.Placed[idx]
		var b [3]int
		for j := range 3 {
			b[j] = cell(p[j] + f.Normals.Gauss(cfg.Pass1Sigma))
		}
		res := int(f.Atoms.Res[idx])
		w.Tok(coordfront.PositionToken(f.Pos(res)))
		w.Tok(coordfront.AtomToken(f.Atoms.Name[idx]))
		boxTokens(w, b)
		used += pass1Mention
		pick.count(res)
		d.NumPass1Mentions++
	}
	return used
}

// boxKey orders boxes as Python orders their (x, y, z) tuples.
func boxKey(b [3]int) int32 { return int32(b[0]*grid*grid + b[1]*grid + b[2]) }

func keyBox(k int32) [3]int {
	return [3]int{int(k) / (grid * grid), int(k) / grid % grid, int(k) % grid}
}

// neighbors appends the in-bounds 26-neighbourhood of b in the reference's
// order (dx, dy, dz each -1, 0, 1, nested).
func neighbors(dst [][3]int, b [3]int) [][3]int {
	for dx := -1; dx <= 1; dx++ {
		for dy := -1; dy <= 1; dy++ {
			for dz := -1; dz <= 1; dz++ {
				if dx == 0 && dy == 0 && dz == 0 {
					continue
				}
				n := [3]int{b[0] + dx, b[1] + dy, b[2] + dz}
				if n[0] >= 0 && n[0] < grid && n[1] >= 0 && n[1] < grid && n[2] >= 0 && n[2] < grid {
					dst = append(dst, n)
				}
			}
		}
	}
	return dst
}

type member struct {
	atom       int32
	nx, ny, nz float64
}

// pass2 writes the crops until a 3-token header no longer fits the budget,
// or a crop overflows it (truncated).
func pass2(f *coordfront.Front, cfg Config, budget, used int, w *coordfront.Writer, d *Document) {
	m := len(f.Placed)
	if m == 0 {
		return
	}
	trueCell := make([]int32, m)
	cellAtoms := map[int32][]int32{}
	for i, p := range f.Placed {
		k := boxKey([3]int{cell(p[0]), cell(p[1]), cell(p[2])})
		trueCell[i] = k
		cellAtoms[k] = append(cellAtoms[k], int32(i))
	}
	var frontier []int32 // sorted
	shown := map[int32]int{}
	var shownOrder []int32 // first-shown order
	var nbs [][3]int
	var included []member
	var counts []float64
	r := f.Rand
	for used+cropHeader <= budget {
		coin := r.Random()
		var box int32
		switch {
		case len(shown) == 0 || coin < cfg.SelectRandom:
			box = trueCell[r.RandBelow(m)]
		case coin < cfg.SelectRandom+cfg.SelectFrontier:
			if len(frontier) > 0 {
				box = frontier[r.RandBelow(len(frontier))]
			} else {
				box = trueCell[r.RandBelow(m)]
			}
		default:
			counts = counts[:0]
			for _, b := range shownOrder {
				counts = append(counts, float64(shown[b]))
			}
			total := coordfront.Fsum(counts)
			x := r.Random() * total
			cum := 0.0
			box = shownOrder[len(shownOrder)-1]
			for k, b := range shownOrder {
				cum += counts[k]
				if x < cum {
					box = b
					break
				}
			}
		}
		visit := shown[box]
		sigma := cfg.RefineNoiseBase / float64((visit+1)*(visit+1))
		bb := keyBox(box)
		w.Tok(tokCrop)
		boxTokens(w, bb)
		used += cropHeader
		d.NumCrops++

		nbs = neighbors(nbs[:0], bb)
		included = included[:0]
		consider := func(ai int32) {
			p := f.Placed[ai]
			nx := p[0] + f.Normals.Gauss(sigma)
			ny := p[1] + f.Normals.Gauss(sigma)
			nz := p[2] + f.Normals.Gauss(sigma)
			if boxKey([3]int{cell(nx), cell(ny), cell(nz)}) != box {
				return
			}
			if r.Random() >= cfg.KeepProb {
				return
			}
			included = append(included, member{ai, nx, ny, nz})
		}
		for _, ai := range cellAtoms[box] {
			consider(ai)
		}
		for _, nb := range nbs {
			for _, ai := range cellAtoms[boxKey(nb)] {
				consider(ai)
			}
		}
		pyrandom.Shuffle(r, included)
		emitted := 0
		truncated := false
		for _, in := range included {
			if used+cropAtom > budget {
				truncated = true
				break
			}
			tx, ty, tz := tenths(in.nx), tenths(in.ny), tenths(in.nz)
			w.Tok(coordfront.PositionToken(f.Pos(int(f.Atoms.Res[in.atom]))))
			w.Tok(coordfront.AtomToken(f.Atoms.Name[in.atom]))
			w.Tok(coordfront.XYZToken(tx/10%10, ty/10%10, tz/10%10))
			w.Tok(coordfront.XYZToken(tx%10, ty%10, tz%10))
			used += cropAtom
			emitted++
		}
		d.CropAtomsEmitted += emitted
		if emitted == 0 {
			d.NumEmptyCrops++
		}
		if visit == 0 {
			shownOrder = append(shownOrder, box)
		}
		shown[box] = visit + 1
		d.MaxBoxVisits = max(d.MaxBoxVisits, visit+1)
		if i, ok := slices.BinarySearch(frontier, box); ok {
			frontier = slices.Delete(frontier, i, i+1)
		}
		if _, occupied := cellAtoms[box]; occupied {
			for _, nb := range nbs {
				k := boxKey(nb)
				if _, seen := shown[k]; seen {
					continue
				}
				if i, ok := slices.BinarySearch(frontier, k); !ok {
					frontier = slices.Insert(frontier, i, k)
				}
			}
		}
		if truncated {
			d.Truncated = true
			break
		}
	}
	d.NumDistinctCropBoxes = len(shown)
}

// picker draws Pass 1's atoms: weight 1/(1 + k[res]) per atom, k the
// residue's draws so far, with numpy's sequential cumsum and
// searchsorted(side="right").
type picker struct {
	res []int32
	k   []float64
	cdf []float64
}

func newPicker(res []int32, L int) *picker {
	return &picker{res: res, k: make([]float64, L), cdf: make([]float64, len(res))}
}

func (p *picker) draw(r *pyrandom.Rand) int {
	c := 0.0
	for i, res := range p.res {
		c += 1.0 / (1.0 + p.k[res])
		p.cdf[i] = c
	}
	x := r.Random() * c
	i, _ := slices.BinarySearchFunc(p.cdf, x, func(e, t float64) int {
		if e <= t {
			return -1
		}
		return 1
	})
	return min(i, len(p.res)-1)
}

func (p *picker) count(res int) { p.k[res] += 1.0 }
