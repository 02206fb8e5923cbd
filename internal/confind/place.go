package confind

import "math"

// defaultIdentities are the identities pyconfind tries at every position
// in its default (not native-only) mode, in its order.
var defaultIdentities = []string{"ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "HIS", "ILE", "LEU",
	"LYS", "MET", "PHE", "SER", "THR", "TRP", "TYR", "VAL", "ALA"}

// aaProp is pyconfind's amino-acid propensity table (percent).
var aaProp = map[string]float64{
	"ALA": 7.73, "CYS": 1.84, "ASP": 5.82, "GLU": 6.61, "PHE": 4.05, "GLY": 7.11, "HIS": 2.35,
	"HSD": 2.35, "ILE": 5.66, "LYS": 6.27, "LEU": 8.83, "MET": 2.08, "ASN": 4.50, "PRO": 4.52,
	"GLN": 3.94, "ARG": 5.03, "SER": 6.13, "THR": 5.53, "VAL": 6.91, "TRP": 1.51, "TYR": 3.54,
}

// placement holds the per-position results of placing and pruning the
// rotamers, and the scratch memory of one template's rows.
type placement struct {
	percont  [][]int32
	nPlaced  []int
	survived []int
	frames   []frame
	bcs      []vec
	same     []bool
	// The atoms and clash status (0 untested, 1 clear, 2 clashing) of the
	// row being built and of the previous row of the same template.
	cur, prev     []vec
	curSt, prevSt []int8
}

// binKey is pyconfind's bin label of angle a for bin width w.
func binKey(a, w float64) int32 {
	half := w / 2
	if a < 0 {
		return int32(w * math.Trunc((a-half)/w))
	}
	return int32(w * math.Trunc((a+half)/w))
}

// confs returns the rows of aa's bin for the position, or nil, false when
// aa has no BEBL entry.
func (lib *Library) confs(aa string, p *Position) ([]int32, bool) {
	bt := lib.bebl[aa]
	if bt == nil {
		return nil, false
	}
	if p.HasPhi && p.HasPsi {
		if idx, ok := bt.bins[[2]int32{binKey(p.Phi, lib.phiBin), binKey(p.Psi, lib.psiBin)}]; ok {
			return idx, true
		}
	}
	if bt.hasWild {
		return bt.wildcard, true
	}
	return nil, true
}

// rotamers places the rotamers of every position (section 4, NeRF) and
// prunes them against the backbone (clash, <=) as it goes: a rotamer stops
// at its first clashing tested atom, ALA's clashing positions become
// permanent contacts, and the survivors' contact atoms, weights and boxes
// go to ws.sv, position-major, then identity order, then bin row order.
func (ws *workspace) rotamers(pos []Position, lib *Library, nativeOnly bool, clash float64) {
	pl, s := &ws.pl, &ws.sv
	obst, obstPos := ws.obst[:0], ws.obstPos[:0]
	for i := range pos {
		for k := 0; k < 4; k++ {
			if pos[i].hasBB[k] {
				obst = append(obst, pos[i].bb[k])
				obstPos = append(obstPos, int32(i))
			}
		}
	}
	ws.obst = obst
	g := &ws.grids[0]
	g.build(obst, clash)
	// the position of each grid point, in grid order
	tag := resize(ws.obstTag, len(g.items), false)
	for q, o := range g.items {
		tag[q] = obstPos[o]
	}
	ws.obstPos, ws.obstTag = obstPos, tag
	pr := pruner{g: g, tag: tag, clash: clash, c2: clash * clash}

	pl.percont = make([][]int32, len(pos))
	pl.nPlaced = resize(pl.nPlaced, len(pos), true)
	pl.survived = resize(pl.survived, len(pos), true)
	// The identities to place at each position, first, so that the
	// survivors' memory is sized once (a pooled workspace may be new).
	var one [1]string
	jobs, jobEnd := ws.jobs[:0], resize(ws.jobEnd, len(pos), false)
	nrot, natom := 0, 0
	for i := range pos {
		p := &pos[i]
		ids := defaultIdentities
		if nativeOnly {
			one[0] = p.ResName
			ids = one[:]
		}
		for _, aa := range ids {
			t := lib.ebl[aa]
			if t == nil {
				continue
			}
			idx, ok := lib.confs(aa, p)
			if !ok || !t.hasParents(p) {
				continue
			}
			jobs = append(jobs, job{t, idx})
			nrot += len(idx)
			natom += len(idx) * t.nContact
		}
		jobEnd[i] = len(jobs)
	}
	ws.jobs, ws.jobEnd = jobs, jobEnd
	s.reset(len(pos), nrot, natom)
	j0 := 0
	for i := range pos {
		for _, jb := range jobs[j0:jobEnd[i]] {
			ws.rows(&pos[i], int32(i), jb.t, jb.idx, &pr)
			pl.nPlaced[i] += len(jb.idx)
		}
		j0 = jobEnd[i]
		s.endPosition()
	}
}

// job is one identity of one position to place: its template and rows.
type job struct {
	t   *template
	idx []int32
}

// rows places and prunes the rows idx of template t at position i.
func (ws *workspace) rows(p *Position, i int32, t *template, idx []int32, pr *pruner) {
	pl, s := &ws.pl, &ws.sv
	prop := aaProp[t.name]
	m := len(t.atoms)
	ala := t.name == "ALA"
	pl.frames = t.frames(p, pl.frames[:0])
	pl.bcs = resize(pl.bcs, m, false)
	pl.same = resize(pl.same, m, false)
	pl.cur, pl.prev = resize(pl.cur, m, false), resize(pl.prev, m, false)
	pl.curSt, pl.prevSt = resize(pl.curSt, m, false), resize(pl.prevSt, m, false)
	prev, prevDone := -1, 0 // the previous row and how many of its atoms were built
	for n, row := range idx {
		done, pruned := m, false
		for k := 0; k < m; k++ {
			reused := t.build(p, k, int(row), prev, k < prevDone, pl.frames, pl.bcs, pl.same, pl.prev, pl.cur)
			if !t.tested[k] {
				continue
			}
			if !ala && reused {
				// the previous row's atom: its status
				if pl.curSt[k] = pl.prevSt[k]; pl.curSt[k] == 2 {
					pruned = true
				}
			} else {
				if pr.test(pl.cur[k], i, ala, &pl.percont[i]) {
					pruned = true
					pl.curSt[k] = 2
				} else {
					pl.curSt[k] = 1
				}
			}
			if pruned && !ala {
				done = k + 1
				break
			}
		}
		if !pruned {
			s.add(prop*t.weights[n], t, pl.cur)
			pl.survived[i]++
		}
		pl.cur, pl.prev = pl.prev, pl.cur
		pl.curSt, pl.prevSt = pl.prevSt, pl.curSt
		prev, prevDone = int(row), done
	}
}

// pruner tests atoms for clashes with the backbone of other positions.
type pruner struct {
	g         *grid
	tag       []int32 // the position of each grid point
	clash, c2 float64
}

// test reports whether x is within clash (<=) of a backbone atom of a
// position other than pos; with all, it adds every such position to
// *percont (sorted) instead of stopping at the first.
func (pr *pruner) test(x vec, pos int32, all bool, percont *[]int32) bool {
	g := pr.g
	x0, x1, y0, y1, z0, z1 := g.span(x, pr.clash)
	hit := false
	for ix := x0; ix <= x1; ix++ {
		for iy := y0; iy <= y1; iy++ {
			base := (ix*g.ny + iy) * g.nz
			q0, q1 := g.start[base+z0], g.start[base+z1+1]
			pts, tag := g.pts[q0:q1], pr.tag[q0:q1]
			for q := range pts {
				if dist2(x, pts[q]) > pr.c2 || tag[q] == pos {
					continue
				}
				if !all {
					return true
				}
				hit = true
				*percont = addSorted(*percont, tag[q])
			}
		}
	}
	return hit
}

// frame is the NeRF frame (bc, m, n) of a placed atom and its parent c,
// when it is the same for every row of a position (ok); fixed atoms are
// the same in every row too (at).
type frame struct {
	bc, m, n, c vec
	ok, fixed   bool
	at          vec
}

// frames computes, for one position, the frames of the atoms whose parents
// are the same in every row (backbone atoms, or fixed atoms: an atom whose
// parents are and whose CONF column is constant), and the fixed atoms'
// places: the same operations on the same inputs as for every row.
func (t *template) frames(p *Position, fr []frame) []frame {
	for k := range t.atoms {
		ref := &t.parentRef[k]
		var abc [3]vec
		same := true
		for i, r := range ref {
			switch {
			case r < 0:
				abc[i] = p.bb[-1-r]
			case fr[r].fixed:
				abc[i] = fr[r].at
			default:
				same = false
			}
		}
		if !same {
			fr = append(fr, frame{})
			continue
		}
		f := frameOf(abc[0], abc[1], abc[2])
		f.ok = true
		if t.varIdx[k] < 0 {
			f.fixed, f.at = true, f.place(&t.constCoef[k])
		}
		fr = append(fr, f)
	}
	return fr
}

func (t *template) hasParents(p *Position) bool {
	for s, need := range t.needBB {
		if need && !p.hasBB[s] {
			return false
		}
	}
	return true
}

// build places atom k of row into out[k]; fr holds the frames of the
// atoms with row-invariant parents. bcs is scratch of len(t.atoms): the
// unit c-b of each atom's frame, which is the unit b-a of a later atom with
// those two parents (t.abFrom), the same operations on the same values.
// When havePrev, prevOut[k] is atom k of row prev and bcs[k] its frame's
// c-b: an atom whose coefficients are prev's bit for bit and whose placed
// parents are prev's (same, scratch of len(t.atoms)) is prev's atom, the
// same operations on the same values, and is copied; build reports whether
// it was.
func (t *template) build(p *Position, k, row, prev int, havePrev bool, fr []frame, bcs []vec, same []bool, prevOut, out []vec) bool {
	var c *[4]float64
	vi := t.varIdx[k]
	if vi >= 0 {
		c = (*[4]float64)(t.varCoef[(row*t.nVar+vi)*4:])
	} else {
		c = &t.constCoef[k]
	}
	if havePrev {
		eq := true
		if vi >= 0 {
			pc := (*[4]float64)(t.varCoef[(prev*t.nVar+vi)*4:])
			eq = math.Float64bits(c[0]) == math.Float64bits(pc[0]) && math.Float64bits(c[1]) == math.Float64bits(pc[1]) &&
				math.Float64bits(c[2]) == math.Float64bits(pc[2]) && math.Float64bits(c[3]) == math.Float64bits(pc[3])
		}
		if eq {
			for _, r := range &t.parentRef[k] {
				if r >= 0 && !same[r] {
					eq = false
					break
				}
			}
		}
		same[k] = eq
		if eq {
			out[k] = prevOut[k] // bcs[k] is prev's
			return true
		}
	} else {
		same[k] = false
	}
	if fr[k].fixed {
		out[k], bcs[k] = fr[k].at, fr[k].bc
		return false
	}
	if fr[k].ok {
		out[k], bcs[k] = fr[k].place(c), fr[k].bc
		return false
	}
	ref := &t.parentRef[k]
	var abc [3]vec
	for i, r := range ref {
		if r >= 0 {
			abc[i] = out[r]
		} else {
			abc[i] = p.bb[-1-r]
		}
	}
	a, b, cc := abc[0], abc[1], abc[2]
	bc := unit(vec{cc[0] - b[0], cc[1] - b[1], cc[2] - b[2]})
	var ab vec
	if j := t.abFrom[k]; j >= 0 {
		ab = bcs[j]
	} else {
		ab = unit(vec{b[0] - a[0], b[1] - a[1], b[2] - a[2]})
	}
	n := unit(cross(ab, bc))
	f := frame{bc: bc, m: cross(n, bc), n: n, c: cc}
	out[k], bcs[k] = f.place(c), bc
	return false
}

// frameOf is the NeRF frame of parents a, b, c in pyconfind's operation
// order, no FMA.
func frameOf(a, b, c vec) frame {
	bc := unit(vec{c[0] - b[0], c[1] - b[1], c[2] - b[2]})
	ab := unit(vec{b[0] - a[0], b[1] - a[1], b[2] - a[2]})
	n := unit(cross(ab, bc))
	return frame{bc: bc, m: cross(n, bc), n: n, c: c}
}

// place returns the atom at coefficients k (bond, -cos t, sin t cos p,
// sin t sin p) from the frame: c + bond*((k1*bc + k2*m) + k3*n).
func (f *frame) place(k *[4]float64) vec {
	var d vec
	for i := 0; i < 3; i++ {
		s := float64(float64(k[1]*f.bc[i])+float64(k[2]*f.m[i])) + float64(k[3]*f.n[i])
		d[i] = f.c[i] + float64(k[0]*s)
	}
	return d
}

func unit(v vec) vec {
	l := math.Sqrt(dot(v, v))
	return vec{v[0] / l, v[1] / l, v[2] / l}
}

func addSorted(s []int32, v int32) []int32 {
	i := 0
	for i < len(s) && s[i] < v {
		i++
	}
	if i < len(s) && s[i] == v {
		return s
	}
	s = append(s, 0)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}
