package confind

import (
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// ErrNoNativeAtom is pyconfind's IndexError ("index 0 is out of bounds for
// axis 0 with size 0"): a run of atoms of one position key holds no atom of
// the key's native residue name (section 3 of the page).
var ErrNoNativeAtom = errors.New("index 0 is out of bounds for axis 0 with size 0")

// legal are the residue names pyconfind keeps.
var legal = map[string]bool{
	"ALA": true, "ARG": true, "ASN": true, "ASP": true, "CYS": true, "GLN": true, "GLU": true,
	"GLY": true, "HIS": true, "ILE": true, "LEU": true, "LYS": true, "MET": true, "PHE": true,
	"PRO": true, "SER": true, "THR": true, "TRP": true, "TYR": true, "VAL": true,
	"HSD": true, "HSE": true, "HSC": true, "HSP": true, "MSE": true, "CSO": true, "HIP": true,
	"SEC": true, "SEP": true, "TPO": true, "PTR": true,
}

type vec [3]float64

// Backbone slots of a position.
const (
	bbN = iota
	bbCA
	bbC
	bbO
)

// Position is one residue position in pyconfind's (MSL) order.
type Position struct {
	Chain   string // truncated to 2 characters, "_" when blank
	ResNum  int
	ICode   string // "" when blank
	ResName string // the native identity's name, raw (MSE, not MET)
	Phi     float64
	Psi     float64
	HasPhi  bool
	HasPsi  bool
	// NPlaced and NSurvived count rotamers over the identities tried.
	NPlaced   int
	NSurvived int

	bb    [4]vec
	hasBB [4]bool
}

// ID is the position's .cont id, "<chain>,<resnum><icode>".
func (p *Position) ID() string { return p.Chain + "," + strconv.Itoa(p.ResNum) + p.ICode }

type posKey struct {
	chain  string
	resnum int
	icode  string
}

type keptAtom struct {
	key     int
	resname string
	name    string
	x       vec
}

// chainID is pyconfind's chain id: stripped, "_" if empty, and cut to two
// characters (a numpy <U2 array).
func chainID(name string) string {
	s := strings.TrimSpace(name)
	if s == "" {
		return "_"
	}
	n := 0
	for i := range s {
		if n == 2 {
			return s[:i]
		}
		n++
	}
	return s
}

func icodeOf(c byte) string {
	if c == 0 || c == ' ' {
		return ""
	}
	return string(rune(c))
}

// positionsOf builds the positions of model 0 of st (sections 2 and 3).
// It returns ErrNoNativeAtom when a run has no native atom.
func positionsOf(st *structure.Structure) ([]Position, error) {
	if len(st.Models) == 0 {
		return nil, nil
	}
	n := 0
	for ci := range st.Models[0].Chains {
		for ri := range st.Models[0].Chains[ci].Residues {
			n += len(st.Models[0].Chains[ci].Residues[ri].Atoms)
		}
	}
	var keys []posKey
	keyIdx := map[posKey]int{}
	chainRank := map[string]int{}
	atoms := make([]keptAtom, 0, n)
	for ci := range st.Models[0].Chains {
		ch := &st.Models[0].Chains[ci]
		cid := chainID(ch.Name)
		for ri := range ch.Residues {
			res := &ch.Residues[ri]
			if !legal[res.Name] {
				continue
			}
			rn := res.Name
			if len(rn) > 4 {
				rn = rn[:4]
			}
			id := -1 // the residue's key, registered at its first kept atom
			for ai := range res.Atoms {
				a := &res.Atoms[ai]
				if a.AltLoc != 0 && a.AltLoc != ' ' && a.AltLoc != 'A' {
					continue
				}
				if id < 0 {
					k := posKey{cid, res.AuthSeq, icodeOf(res.ICode)}
					var ok bool
					if id, ok = keyIdx[k]; !ok {
						id = len(keys)
						keys = append(keys, k)
						keyIdx[k] = id
					}
					if _, ok := chainRank[cid]; !ok {
						chainRank[cid] = len(chainRank)
					}
				}
				atoms = append(atoms, keptAtom{key: id, resname: rn, name: a.Name, x: vec{a.X, a.Y, a.Z}})
			}
		}
	}
	if len(atoms) == 0 {
		return nil, nil
	}
	atoms = reorder(atoms, keys, chainRank)
	// Native identity of each key: its first name in the (new) order.
	native := make([]string, len(keys))
	for i := range atoms {
		if native[atoms[i].key] == "" {
			native[atoms[i].key] = atoms[i].resname
		}
	}
	pos := make([]Position, 0, len(keys))
	for s := 0; s < len(atoms); {
		e := s + 1
		for e < len(atoms) && atoms[e].key == atoms[s].key {
			e++
		}
		k := keys[atoms[s].key]
		nat := native[atoms[s].key]
		p := Position{Chain: k.chain, ResNum: k.resnum, ICode: k.icode, ResName: nat}
		found := false
		for i := s; i < e; i++ {
			a := &atoms[i]
			if a.resname != nat {
				continue
			}
			found = true
			slot := -1
			switch a.name {
			case "N":
				slot = bbN
			case "CA":
				slot = bbCA
			case "C":
				slot = bbC
			case "O":
				slot = bbO
			}
			if slot >= 0 {
				p.bb[slot], p.hasBB[slot] = a.x, true
			}
		}
		if !found {
			return nil, ErrNoNativeAtom
		}
		pos = append(pos, p)
		s = e
	}
	setPhiPsi(pos)
	return pos, nil
}

// reorder sorts the runs of atoms into the MSL order (chain rank, resnum,
// blank icode first), stably on file order.
func reorder(atoms []keptAtom, keys []posKey, chainRank map[string]int) []keptAtom {
	type run struct{ s, e int }
	var runs []run
	for s := 0; s < len(atoms); {
		e := s + 1
		for e < len(atoms) && atoms[e].key == atoms[s].key {
			e++
		}
		runs = append(runs, run{s, e})
		s = e
	}
	less := func(a, b run) bool {
		ka, kb := keys[atoms[a.s].key], keys[atoms[b.s].key]
		if ra, rb := chainRank[ka.chain], chainRank[kb.chain]; ra != rb {
			return ra < rb
		}
		if ka.resnum != kb.resnum {
			return ka.resnum < kb.resnum
		}
		return ka.icode == "" && kb.icode != ""
	}
	if sort.SliceIsSorted(runs, func(i, j int) bool { return less(runs[i], runs[j]) }) {
		return atoms
	}
	sort.SliceStable(runs, func(i, j int) bool { return less(runs[i], runs[j]) })
	out := make([]keptAtom, 0, len(atoms))
	for _, r := range runs {
		out = append(out, atoms[r.s:r.e]...)
	}
	return out
}

func setPhiPsi(pos []Position) {
	for i := range pos {
		p := &pos[i]
		if !p.hasBB[bbN] || !p.hasBB[bbCA] || !p.hasBB[bbC] {
			continue
		}
		if i > 0 && pos[i-1].Chain == p.Chain && pos[i-1].hasBB[bbC] {
			p.Phi, p.HasPhi = dihedral(pos[i-1].bb[bbC], p.bb[bbN], p.bb[bbCA], p.bb[bbC]), true
		}
		if i+1 < len(pos) && pos[i+1].Chain == p.Chain && pos[i+1].hasBB[bbN] {
			p.Psi, p.HasPsi = dihedral(p.bb[bbN], p.bb[bbCA], p.bb[bbC], pos[i+1].bb[bbN]), true
		}
	}
}

// radToDeg is 180/pi as the float64 pyconfind multiplies by.
const radToDeg = 0x1.ca5dc1a63c1f8p+5

// dihedral is pyconfind's scalar dihedral in degrees, in its exact
// operation order (no fused multiply-add).
func dihedral(a, b, c, d vec) float64 {
	b1 := vec{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
	b2 := vec{c[0] - b[0], c[1] - b[1], c[2] - b[2]}
	b3 := vec{d[0] - c[0], d[1] - c[1], d[2] - c[2]}
	n2 := cross(b2, b3)
	cr := cross(b1, b2)
	nb2 := math.Sqrt(dot(b2, b2))
	y := nb2 * dot(b1, n2)
	x := dot(cr, n2)
	return atan2(y, x) * radToDeg
}

// dot is (u0*v0 + u1*v1) + u2*v2, each product rounded (no FMA).
func dot(u, v vec) float64 {
	return float64(float64(u[0]*v[0])+float64(u[1]*v[1])) + float64(u[2]*v[2])
}

// cross is (u1*v2 - u2*v1, u2*v0 - u0*v2, u0*v1 - u1*v0), no FMA.
func cross(u, v vec) vec {
	return vec{
		float64(u[1]*v[2]) - float64(u[2]*v[1]),
		float64(u[2]*v[0]) - float64(u[0]*v[2]),
		float64(u[0]*v[1]) - float64(u[1]*v[0]),
	}
}
