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
	// Of one template's n rows: coordinate d of atom k of row r at
	// [(3*k+d)*n+r], its frame's unit c-b, the clash status of atom k of
	// row r at [k*n+r] (0 untested, 1 clear, 2 clashing), and scratch.
	at, bc, fix []float64
	st          []int8
	alive       []bool
	hits        []int32 // the C pruner's clashing positions (ALA)
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
	// the grid's points by coordinate (each padded by 4), for the C kernel
	n := len(g.pts)
	soa := resize(ws.obstSoA, 3*(n+4), false)
	for q, v := range g.pts {
		soa[q], soa[n+4+q], soa[2*(n+4)+q] = v[0], v[1], v[2]
	}
	for q := n; q < n+4; q++ {
		soa[q], soa[n+4+q], soa[2*(n+4)+q] = 0, 0, 0
	}
	ws.obstSoA = soa
	pr := pruner{g: g, tag: tag, soa: soa, clash: clash, c2: clash * clash}

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
		ws.yield()
	}
}

// job is one identity of one position to place: its template and rows.
type job struct {
	t   *template
	idx []int32
}

// rows places and prunes the rows idx of template t at position i. Atoms
// are built atom by atom over all the rows (coordinate d of atom k of row r
// at pl.at[(3*k+d)*n+r]), so that the rows' NeRF steps, which are
// independent, run as vectors (nerfRows); each atom is the same operations
// on the same values as pyconfind's, so building the atoms of a row that a
// clash prunes early changes nothing but the time. Then each row is tested
// in atom order and stops at its first clashing atom (ALA tests all, for
// the permanent contacts); an atom equal, bit for bit, to the same atom of
// the row before has that row's result.
func (ws *workspace) rows(p *Position, i int32, t *template, idx []int32, pr *pruner) {
	pl, s := &ws.pl, &ws.sv
	prop := aaProp[t.name]
	m, n := len(t.atoms), len(idx)
	ala := t.name == "ALA"
	pl.frames = t.frames(p, pl.frames[:0])
	pl.at = resize(pl.at, 3*m*n, false)
	pl.bc = resize(pl.bc, 3*m*n, false)
	pl.st = resize(pl.st, m*n, true)
	pl.fix = resize(pl.fix, 9*n, false)
	for k := 0; k < m; k++ {
		t.place(p, k, idx, pl.frames, pl.at, pl.bc, pl.fix)
	}
	pl.alive = resize(pl.alive, n, false)
	prune(pl, t, n, i, ala, pr)
	pl.survived[i] += s.addAlive(prop, t, pl.at, pl.alive)
}

// pruneGo is prune in Go: each row of pl.at is tested in atom order and
// stops at its first clashing atom (ALA tests all, adding the clashing
// positions to the permanent contacts of position i); an atom equal, bit
// for bit, to the same atom of the row before has that row's result. The
// rows without a clash are pl.alive.
func pruneGo(pl *placement, t *template, n int, i int32, ala bool, pr *pruner) {
	at, m := pl.at, len(t.atoms)
	for r := 0; r < n; r++ {
		pruned := false
		for k := 0; k < m; k++ {
			if !t.tested[k] {
				continue
			}
			x := vec{at[3*k*n+r], at[(3*k+1)*n+r], at[(3*k+2)*n+r]}
			a := k*n + r
			var st int8
			if r > 0 && pl.st[a-1] != 0 && sameVec(x, vec{at[3*k*n+r-1], at[(3*k+1)*n+r-1], at[(3*k+2)*n+r-1]}) {
				st = pl.st[a-1]
			} else if pr.test(x, i, ala, &pl.percont[i]) {
				st = 2
			} else {
				st = 1
			}
			pl.st[a] = st
			if st == 2 {
				pruned = true
				if !ala {
					break
				}
			}
		}
		pl.alive[r] = !pruned
	}
}

func sameVec(a, b vec) bool {
	return math.Float64bits(a[0]) == math.Float64bits(b[0]) && math.Float64bits(a[1]) == math.Float64bits(b[1]) &&
		math.Float64bits(a[2]) == math.Float64bits(b[2])
}

// pruner tests atoms for clashes with the backbone of other positions.
type pruner struct {
	g         *grid
	tag       []int32   // the position of each grid point
	soa       []float64 // the grid's points' x, then y, then z, each padded by 4
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

// place builds atom k of every row idx into at (coordinate d of row r at
// at[(3*k+d)*n+r], n = len(idx)) and the unit c-b of its frame into bc,
// which is the unit b-a of a later atom with those two parents (t.abFrom):
// the same operations on the same values. fr holds the frames of the atoms
// with row-invariant parents; fix is scratch of 9*n values.
func (t *template) place(p *Position, k int, idx []int32, fr []frame, at, bc, fix []float64) {
	n := len(idx)
	out, obc := at[3*k*n:3*(k+1)*n], bc[3*k*n:3*(k+1)*n]
	f := &fr[k]
	vi := t.varIdx[k]
	if f.fixed {
		for d := 0; d < 3; d++ {
			o, ob := out[d*n:(d+1)*n], obc[d*n:(d+1)*n]
			for r := range o {
				o[r], ob[r] = f.at[d], f.bc[d]
			}
		}
		return
	}
	coef, stride := t.constCoef[k][:], 0
	if vi >= 0 {
		coef, stride = t.varCoef[vi*4:], t.nVar*4
	}
	if f.ok {
		for r, row := range idx {
			c := (*[4]float64)(coef[int(row)*stride:])
			x := f.place(c)
			out[r], out[n+r], out[2*n+r] = x[0], x[1], x[2]
			obc[r], obc[n+r], obc[2*n+r] = f.bc[0], f.bc[1], f.bc[2]
		}
		return
	}
	// The parents: an earlier atom's coordinates over the rows, or a
	// backbone atom's, the same in every row (copied n times into fix).
	var par [3][]float64
	for i, ref := range &t.parentRef[k] {
		if ref >= 0 {
			par[i] = at[3*ref*n : 3*(ref+1)*n]
			continue
		}
		x := p.bb[-1-ref]
		q := fix[3*i*n : 3*(i+1)*n]
		for d := 0; d < 3; d++ {
			for r := 0; r < n; r++ {
				q[d*n+r] = x[d]
			}
		}
		par[i] = q
	}
	var ab []float64
	if j := t.abFrom[k]; j >= 0 {
		ab = bc[3*j*n : 3*(j+1)*n]
	}
	nerfRows(idx, coef, stride, par[0], par[1], par[2], ab, out, obc)
}

// nerfRowsGo is nerfRows in Go: for each row r, the atom placed from
// parents a, b, c (coordinate d at [d*n+r]) with the coefficients
// coef[idx[r]*stride:][:4], its frame's unit c-b into obc; ab, when not nil,
// is the unit b-a of each row (an earlier atom's unit c-b).
func nerfRowsGo(idx []int32, coef []float64, stride int, a, b, c, ab, out, obc []float64) {
	n := len(idx)
	for r, row := range idx {
		k := (*[4]float64)(coef[int(row)*stride:])
		bb := vec{b[r], b[n+r], b[2*n+r]}
		cc := vec{c[r], c[n+r], c[2*n+r]}
		u := unit(vec{cc[0] - bb[0], cc[1] - bb[1], cc[2] - bb[2]})
		var v vec
		if ab != nil {
			v = vec{ab[r], ab[n+r], ab[2*n+r]}
		} else {
			v = unit(vec{bb[0] - a[r], bb[1] - a[n+r], bb[2] - a[2*n+r]})
		}
		nn := unit(cross(v, u))
		fm := frame{bc: u, m: cross(nn, u), n: nn, c: cc}
		x := fm.place(k)
		out[r], out[n+r], out[2*n+r] = x[0], x[1], x[2]
		obc[r], obc[n+r], obc[2*n+r] = u[0], u[1], u[2]
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
