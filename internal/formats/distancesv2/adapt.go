package distancesv2

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/geom"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// atomVocab is the 37-name atom vocabulary; an atom's token is <NAME>.
var atomVocab = [...]string{"C", "CA", "CB", "CD", "CD1", "CD2", "CE", "CE1", "CE2", "CE3", "CG", "CG1",
	"CG2", "CH2", "CZ", "CZ2", "CZ3", "N", "ND1", "ND2", "NE", "NE1", "NE2", "NH1", "NH2", "NZ", "O", "OD1",
	"OD2", "OE1", "OE2", "OG", "OG1", "OH", "SD", "SG", "OXT"}

// aminoAcids are the 20 canonical residue names; anything else is UNK.
var aminoAcids = [...]string{"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU",
	"LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL"}

const (
	unk    = uint8(len(aminoAcids)) // residue code of UNK
	noAtom = uint8(len(atomVocab))  // a contact's atoms (an empty token)
	glyIdx = 7
	atomCA = 1
	atomCB = 2
)

// Protein is a structure adapted for the generator (spec section 1): the
// single (or, when a single chain is not required, the first) polymer chain
// of the first model, residues numbered by order.
type Protein struct {
	// Res holds each residue's code: an index into the 20 amino acids, or
	// 20 for UNK.
	Res []uint8
	// AtomStart[i]:AtomStart[i+1] are residue i's kept atoms (not hydrogen,
	// name in the vocabulary, file order, altloc duplicates kept).
	AtomStart []int32
	AtomName  []uint8 // vocabulary index of each kept atom
	AtomPos   []geom.Vec3
	// Rep is the index (into AtomPos) of the residue's contact atom: the
	// first CB (GLY: the first CA; no CB: the first CA), or -1.
	Rep []int32
	// PLDDT is the mean float32 B-factor of the residue's non-hydrogen
	// atoms, -Inf when it has none.
	PLDDT       []float64
	GlobalPLDDT float64
}

// Adapt reads the generator's view of s (spec section 1). A file without
// models is an error, marked permanent. Designed-in filters return their
// reason and no error: no polymer chain (FilteredNoPolymer), and, when
// requireSingleChain is set, more than one (FilteredMultiChain); with
// requireSingleChain unset the first polymer chain is taken, as the
// reference's require_single_chain=False does.
func Adapt(s *structure.Structure, requireSingleChain bool) (p *Protein, filtered string, err error) {
	p = &Protein{}
	filtered, err = p.adapt(s, requireSingleChain)
	return p, filtered, err
}

func (p *Protein) adapt(s *structure.Structure, requireSingleChain bool) (filtered string, err error) {
	if s == nil || len(s.Models) == 0 {
		return "", derrors.Permanent(fmt.Errorf("no models in structure"))
	}
	var poly []structure.Residue
	found := 0
	for i := range s.Models[0].Chains {
		if r := s.Models[0].Chains[i].Polymer(); len(r) > 0 {
			found++
			if found == 1 {
				poly = r
			}
		}
	}
	switch {
	case found == 0:
		return FilteredNoPolymer, nil
	case found > 1 && requireSingleChain:
		return FilteredMultiChain, nil
	}
	n := len(poly)
	p.Res = append(p.Res[:0], make([]uint8, n)...)
	p.Rep = append(p.Rep[:0], make([]int32, n)...)
	p.PLDDT = append(p.PLDDT[:0], make([]float64, n)...)
	p.AtomStart = append(p.AtomStart[:0], 0)
	total := 0
	for i := range poly {
		total += len(poly[i].Atoms)
	}
	// written by index (no append), each coordinate stored separately: a
	// Vec3 built whole is stored through the stack, and the wide reload of
	// three narrow stores stalls
	names := slices.Grow(p.AtomName[:0], total)[:total]
	pos := slices.Grow(p.AtomPos[:0], total)[:total]
	k := int32(0)
	sum := 0.0
	for i := range poly {
		r := &poly[i]
		code := residueCode(r.Name)
		p.Res[i] = code
		cb, ca := int32(-1), int32(-1)
		bsum, nheavy := 0.0, 0
		for j := range r.Atoms {
			a := &r.Atoms[j]
			if a.IsHydrogen() {
				continue
			}
			bsum += float64(a.B)
			nheavy++
			v, ok := atomTable.lookup(a.Name) // atomCode, inlined
			if !ok {
				continue
			}
			switch {
			case v == atomCB && cb < 0:
				cb = k
			case v == atomCA && ca < 0:
				ca = k
			}
			names[k] = v
			q := &pos[k]
			q[0], q[1], q[2] = a.X, a.Y, a.Z
			k++
		}
		p.AtomStart = append(p.AtomStart, k)
		rep := cb
		if code == glyIdx || rep < 0 {
			rep = ca
		}
		p.Rep[i] = rep
		if nheavy == 0 {
			p.PLDDT[i] = math.Inf(-1)
		} else {
			p.PLDDT[i] = bsum / float64(nheavy)
		}
		sum += p.PLDDT[i]
	}
	p.AtomName, p.AtomPos = names[:k], pos[:k]
	p.GlobalPLDDT = sum / float64(n)
	return "", nil
}

// EntryID returns the reference's entry_id for a file: the mmCIF block name
// with one trailing .cif, .mmcif, .pdb or .ent removed, or, when the block
// name is empty, the file's stem (its base name without the last extension).
func EntryID(blockName, file string) string {
	if blockName == "" {
		base := path.Base(strings.ReplaceAll(file, "\\", "/"))
		return strings.TrimSuffix(base, path.Ext(base))
	}
	for _, ext := range []string{".cif", ".mmcif", ".pdb", ".ent"} {
		if strings.HasSuffix(blockName, ext) {
			return strings.TrimSuffix(blockName, ext)
		}
	}
	return blockName
}
