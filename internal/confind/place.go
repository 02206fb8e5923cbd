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
	posRot   []int32 // rotamers of position i: rots[posRot[i]:posRot[i+1]]
	percont  [][]int32
	nPlaced  []int
	survived []int
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

// place builds every rotamer of every position (section 4, NeRF).
func place(pos []Position, lib *Library, nativeOnly bool) *placement {
	pl := &placement{posRot: make([]int32, 1, len(pos)+1), nPlaced: make([]int, len(pos))}
	var one [1]string
	type job struct {
		t   *template
		idx []int32
	}
	jobs := make([]job, 0, len(pos))
	jobEnd := make([]int, len(pos))
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
	pl.rots = make([]rotamer, 0, nrot)
	pl.atoms = make([]vec, natom)
	a0 := 0
	j0 := 0
	var fr []frame
	for i := range pos {
		p := &pos[i]
		for _, jb := range jobs[j0:jobEnd[i]] {
			t := jb.t
			prop := aaProp[t.name]
			m := len(t.atoms)
			fr = t.frames(p, fr[:0])
			for n, row := range jb.idx {
				t.build(p, int(row), fr, pl.atoms[a0:a0+m])
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

// frame is the NeRF frame (bc, m, n) of a placed atom and its parent c.
type frame struct {
	bc, m, n, c vec
	ok          bool
}

// frames computes the frames of the atoms whose parents are all backbone
// atoms (the same for every row of the position).
func (t *template) frames(p *Position, fr []frame) []frame {
	for k := range t.atoms {
		ref := &t.parentRef[k]
		if ref[0] >= 0 || ref[1] >= 0 || ref[2] >= 0 {
			fr = append(fr, frame{})
			continue
		}
		f := frameOf(p.bb[-1-ref[0]], p.bb[-1-ref[1]], p.bb[-1-ref[2]])
		f.ok = true
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
// with backbone parents.
func (t *template) build(p *Position, row int, fr []frame, out []vec) {
	for k := range t.atoms {
		var c *[4]float64
		if vi := t.varIdx[k]; vi >= 0 {
			c = (*[4]float64)(t.varCoef[(row*t.nVar+vi)*4:])
		} else {
			c = &t.constCoef[k]
		}
		if fr[k].ok {
			out[k] = fr[k].place(c)
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
		f := frameOf(abc[0], abc[1], abc[2])
		out[k] = f.place(c)
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
func (pl *placement) prune(pos []Position, clash float64) {
	var obst []vec
	var obstPos []int32
	for i := range pos {
		for s := 0; s < 4; s++ {
			if pos[i].hasBB[s] {
				obst = append(obst, pos[i].bb[s])
				obstPos = append(obstPos, int32(i))
			}
		}
	}
	g := newGrid(obst, clash)
	c2 := clash * clash
	pl.percont = make([][]int32, len(pos))
	pl.survived = make([]int, len(pos))
	var cells []cellRange
	for ri := range pl.rots {
		r := &pl.rots[ri]
		ala := r.t.name == "ALA"
		for k, tested := range r.t.tested {
			if !tested {
				continue
			}
			x := pl.atoms[int(r.atom0)+k]
			cells = g.around(cells[:0], x)
		scan:
			for _, cr := range cells {
				for _, o := range g.items[g.start[cr.base+cr.z0]:g.start[cr.base+cr.z1+1]] {
					if obstPos[o] == r.pos || dist2(x, obst[o]) > c2 {
						continue
					}
					r.pruned = true
					if !ala {
						break scan
					}
					pl.percont[r.pos] = addSorted(pl.percont[r.pos], obstPos[o])
				}
			}
			if r.pruned && !ala {
				break
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
