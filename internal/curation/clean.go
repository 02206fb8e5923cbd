package curation

import (
	"github.com/foldcorpus/foldcorpus/internal/assembly"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Cleaning is exp222's clean_structure on gemmi 0.7.5, per chain:
//
//  1. remove_alternative_conformations: of the residues with one sequence
//     id (auth number and insertion code, compared as gemmi's SeqId
//     operator<: the code with case) the first stays, ligands and waters
//     included, then of a residue's atoms with one name the first;
//  2. remove_hydrogens: atoms of element H or D go;
//  3. remove_ligands_and_waters: residues not typed polymer go;
//  4. atoms of element X (an unknown symbol) go; a residue may be left
//     without atoms, and stays;
//  5. remove_empty_chains: chains without residues go.
//
// Elements are gemmi's find_element of type_symbol (elementKind).

// elemKind is what curation needs of gemmi's Element.
type elemKind uint8

const (
	elemOther elemKind = iota
	elemHydrogen
	elemUnknown
)

// elementKind classifies a type_symbol as gemmi's find_element does: only
// the first two bytes count, without case; a first blank defers to the
// second; a second byte below 14 (after upper-casing: also blank and
// most punctuation) makes a one-letter symbol.
func elementKind(sym string) elemKind {
	if sym == "" {
		return elemUnknown
	}
	first := sym[0] &^ 0x20
	var second byte
	if len(sym) > 1 {
		second = sym[1] &^ 0x20
	}
	var one byte
	switch {
	case first == 0:
		one = second
	case second < 14:
		one = first
	default:
		if isTwoLetterElement(first, second) {
			return elemOther
		}
		return elemUnknown
	}
	switch one {
	case 'H', 'D':
		return elemHydrogen
	case 'B', 'C', 'N', 'O', 'F', 'P', 'S', 'K', 'V', 'Y', 'I', 'W', 'U':
		return elemOther
	}
	return elemUnknown
}

// twoLetterElements are gemmi's upper-case element names of two letters.
const twoLetterElements = "HELIBENEMGALSICLARCASCTICRMNFECONICUZNGAGEASSEBRKRRBSRZRNBMOTCRURHPDAGCDINSNSBTEXECSBALACEPRNDPMSMEUGDTBDYHOERTMYBLUHFTAREOSIRPTAUHGTLPBBIPOATRNFRRAACTHPANPPUAMCMBKCFESFMMDNOLRRFDBSGBHHSMTDSRGCNNHFLMCLVTSOG"

func isTwoLetterElement(a, b byte) bool {
	for i := 0; i+1 < len(twoLetterElements); i += 2 {
		if twoLetterElements[i] == a && twoLetterElements[i+1] == b {
			return true
		}
	}
	return false
}

// seqKey is gemmi's SeqId ordering key (num*256 + icode, icode ' ' when
// absent).
func seqKey(r *structure.Residue) int64 {
	ic := r.ICode
	if ic == 0 {
		ic = ' '
	}
	return int64(r.AuthSeq)*256 + int64(ic)
}

// cleanResidues returns the indices (into res) of the residues cleaning
// keeps of a chain whose residues are res[idx[0]], res[idx[1]], ...
func cleanResidues(res []structure.Residue, idx []int, seen map[int64]bool) []int {
	clear(seen)
	var out []int
	for _, i := range idx {
		k := seqKey(&res[i])
		if seen[k] {
			continue
		}
		seen[k] = true
		if res[i].Entity == structure.EntityPolymer {
			out = append(out, i)
		}
	}
	return out
}

// appendCleanAtoms appends to dst the atoms cleaning keeps of r (moved by
// op when it is not nil).
func appendCleanAtoms(dst []structure.Atom, r *structure.Residue, op *assembly.Operator, names map[string]bool) []structure.Atom {
	clear(names)
	for _, at := range r.Atoms {
		if names[at.Name] {
			continue
		}
		names[at.Name] = true
		if elementKind(at.Element) != elemOther {
			continue
		}
		at.AltLoc = 0
		if op != nil {
			at.X, at.Y, at.Z = op.Apply(at.X, at.Y, at.Z)
		}
		dst = append(dst, at)
	}
	return dst
}

// piece is one chain to clean: residues idx of source chain src, renamed
// name, subchains suffixed, moved by op (nil: as they are).
type piece struct {
	name   string
	suffix string
	src    *structure.Chain
	idx    []int
	op     *assembly.Operator
}

// cleanModel builds the cleaned model of pieces, in order, with its own
// arrays; pieces left without residues are not in it.
func cleanModel(num int, pieces []piece) *structure.Model {
	seen := make(map[int64]bool)
	names := make(map[string]bool)
	kept := make([][]int, len(pieces))
	nRes, nAtoms := 0, 0
	for i, p := range pieces {
		kept[i] = cleanResidues(p.src.Residues, p.idx, seen)
		nRes += len(kept[i])
		for _, ri := range kept[i] {
			nAtoms += len(p.src.Residues[ri].Atoms)
		}
	}
	out := &structure.Model{Num: num}
	residues := make([]structure.Residue, 0, nRes)
	atoms := make([]structure.Atom, 0, nAtoms)
	for i, p := range pieces {
		if len(kept[i]) == 0 {
			continue
		}
		first := len(residues)
		for _, ri := range kept[i] {
			r := p.src.Residues[ri]
			a0 := len(atoms)
			atoms = appendCleanAtoms(atoms, &p.src.Residues[ri], p.op, names)
			r.Atoms = atoms[a0:len(atoms):len(atoms)]
			if r.Subchain != "" {
				r.Subchain += p.suffix
			}
			residues = append(residues, r)
		}
		out.Chains = append(out.Chains, structure.Chain{Name: p.name, Residues: residues[first:len(residues):len(residues)]})
	}
	return out
}

// cleanASU is clean_structure of model m (the raw entry's model 0).
func cleanASU(m *structure.Model) *structure.Model {
	pieces := make([]piece, len(m.Chains))
	for ci := range m.Chains {
		c := &m.Chains[ci]
		idx := make([]int, len(c.Residues))
		for i := range idx {
			idx[i] = i
		}
		pieces[ci] = piece{name: c.Name, src: c, idx: idx}
	}
	return cleanModel(m.Num, pieces)
}

// cleanAssembly is clean_structure of the assembly that copies build from
// m, built without the atoms cleaning would remove.
func cleanAssembly(m *structure.Model, copies []assembly.Copy) *structure.Model {
	pieces := make([]piece, len(copies))
	for i, c := range copies {
		pieces[i] = piece{name: c.Name, suffix: c.Suffix, src: &m.Chains[c.Chain], idx: c.Residues, op: c.Op}
	}
	return cleanModel(m.Num, pieces)
}
