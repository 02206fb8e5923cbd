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

// rotamer is one placed rotamer of one position.
type rotamer struct {
	pos    int32
	t      *template
	w      float64 // aa_prop * library weight
	atom0  int32   // its atoms are atoms[atom0 : atom0+len(t.atoms)]
	pruned bool
}

// placement holds every rotamer placed in a structure, in position order,
// then identity order, then bin row order.
type placement struct {
	rots     []rotamer
	atoms    []vec
	atomSame []bool  // atoms[a] is atoms[a-len(t.atoms)], the same computation (build)
	posRot   []int32 // rotamers of position i: rots[posRot[i]:posRot[i+1]]
	percont  [][]int32
	nPlaced  []int
	survived []int
	frames   []frame
	bcs      []vec
	same     []bool
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

// job is one identity of one position to place.
type job struct {
	t   *template
	idx []int32
}

// place builds every rotamer of every position (section 4, NeRF) into
// ws.pl.
func (ws *workspace) place(pos []Position, lib *Library, nativeOnly bool) *placement {
	pl := &ws.pl
	pl.posRot = append(pl.posRot[:0], 0)
	pl.nPlaced = resize(pl.nPlaced, len(pos), true)
	var one [1]string
	jobs := ws.jobs[:0]
	jobEnd := resize(ws.jobEnd, len(pos), false)
	defer func() { ws.jobs, ws.jobEnd = jobs[:0], jobEnd }()
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
			natom += len(idx) * len(t.atoms)
		}
		jobEnd[i] = len(jobs)
	}
	pl.rots = resize(pl.rots, nrot, false)[:0]
	pl.atoms = resize(pl.atoms, natom, false)
	pl.atomSame = resize(pl.atomSame, natom, false)
	a0 := 0
	j0 := 0
	fr, bcs, same := pl.frames[:0], pl.bcs, pl.same
	defer func() { pl.frames, pl.bcs, pl.same = fr[:0], bcs, same }()
	for i := range pos {
		p := &pos[i]
		for _, jb := range jobs[j0:jobEnd[i]] {
			t := jb.t
			prop := aaProp[t.name]
			m := len(t.atoms)
			fr = t.frames(p, fr[:0])
			bcs = resize(bcs, m, false)
			same = resize(same, m, false)
			prev := -1
			for n, row := range jb.idx {
				var prevOut []vec
				if prev >= 0 {
					prevOut = pl.atoms[a0-m : a0]
				}
				t.build(p, int(row), prev, fr, bcs, same, prevOut, pl.atoms[a0:a0+m])
				if prev >= 0 {
					copy(pl.atomSame[a0:a0+m], same)
				} else {
					clear(pl.atomSame[a0 : a0+m])
				}
				prev = int(row)
				pl.rots = append(pl.rots, rotamer{pos: int32(i), t: t, w: prop * t.weights[n], atom0: int32(a0)})
				a0 += m
			}
			pl.nPlaced[i] += len(jb.idx)
		}
		j0 = jobEnd[i]
		pl.posRot = append(pl.posRot, int32(len(pl.rots)))
	}
	return pl
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

// build places row's atoms into out; fr holds the frames of the atoms
// with row-invariant parents. bcs is scratch of len(t.atoms): the unit
// c-b of each atom's frame, which is the unit b-a of a later atom with
// those two parents (t.abFrom), the same operations on the same values.
// When prev >= 0, prevOut holds row prev's atoms and bcs its frames'
// c-b: an atom whose coefficients are prev's bit for bit and whose placed
// parents are prev's (same[k], scratch of len(t.atoms)) is prev's atom, the
// same operations on the same values, and is copied.
func (t *template) build(p *Position, row, prev int, fr []frame, bcs []vec, same []bool, prevOut, out []vec) {
	for k := range t.atoms {
		var c *[4]float64
		vi := t.varIdx[k]
		if vi >= 0 {
			c = (*[4]float64)(t.varCoef[(row*t.nVar+vi)*4:])
		} else {
			c = &t.constCoef[k]
		}
		if prev >= 0 {
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
				continue
			}
		}
		if fr[k].fixed {
			out[k], bcs[k] = fr[k].at, fr[k].bc
			continue
		}
		if fr[k].ok {
			out[k], bcs[k] = fr[k].place(c), fr[k].bc
			continue
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
	}
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

// prune marks rotamers with a tested atom within clash (<=) of another
// position's backbone atom, records ALA's clashing positions as permanent
// contacts, and counts survivors.
func (ws *workspace) prune(pos []Position, clash float64) {
	pl := &ws.pl
	obst, obstPos := ws.obst[:0], ws.obstPos[:0]
	for i := range pos {
		for s := 0; s < 4; s++ {
			if pos[i].hasBB[s] {
				obst = append(obst, pos[i].bb[s])
				obstPos = append(obstPos, int32(i))
			}
		}
	}
	ws.obst, ws.obstPos = obst, obstPos
	g := &ws.grids[0]
	g.build(obst, clash)
	c2 := clash * clash
	pl.percont = make([][]int32, len(pos))
	pl.survived = resize(pl.survived, len(pos), true)
	// status[a]: 0 not tested, 1 clear, 2 clashing (non-ALA rotamers); an
	// atom that is the previous rotamer's (atomSame) has its status.
	status := resize(ws.status, len(pl.atoms), true)
	defer func() { ws.status = status }()
	for ri := range pl.rots {
		r := &pl.rots[ri]
		ala := r.t.name == "ALA"
		m := len(r.t.atoms)
		for k, tested := range r.t.tested {
			if !tested {
				continue
			}
			a := int(r.atom0) + k
			if !ala && pl.atomSame[a] {
				if st := status[a-m]; st != 0 {
					status[a] = st
					if st == 2 {
						r.pruned = true
						break
					}
					continue
				}
			}
			x := pl.atoms[a]
			x0, x1, y0, y1, z0, z1 := g.span(x, clash)
		scan:
			for ix := x0; ix <= x1; ix++ {
				for iy := y0; iy <= y1; iy++ {
					base := (ix*g.ny + iy) * g.nz
					for q := g.start[base+z0]; q < g.start[base+z1+1]; q++ {
						o := g.items[q]
						if obstPos[o] == r.pos || dist2(x, g.pts[q]) > c2 {
							continue
						}
						r.pruned = true
						if !ala {
							break scan
						}
						pl.percont[r.pos] = addSorted(pl.percont[r.pos], obstPos[o])
					}
				}
			}
			if !ala {
				status[a] = 1
				if r.pruned {
					status[a] = 2
					break
				}
			}
		}
		if !r.pruned {
			pl.survived[r.pos]++
		}
	}
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
