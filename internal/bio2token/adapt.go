package bio2token

import (
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Input is a structure adapted for the encoder: the kept residues and atoms
// in canonical order and their centred float32 coordinates.
type Input struct {
	// ResNames are the kept residues' 3-letter (or 1-letter RNA) names, in
	// chain order over all chains of the first model.
	ResNames []string
	// AtomRes is the index into ResNames of each kept atom.
	AtomRes []int32
	// AtomNames is each kept atom's name.
	AtomNames []string
	// Coords holds x, y, z per kept atom (len 3*len(AtomNames)), in Å,
	// centred on the mean of the kept atoms.
	Coords []float32
}

// NumAtoms is the number of kept atoms.
func (in *Input) NumAtoms() int { return len(in.AtomNames) }

// Sequence is the one-letter sequence of the kept residues.
func (in *Input) Sequence() string {
	b := make([]byte, len(in.ResNames))
	for i, r := range in.ResNames {
		b[i] = oneLetter(r)
	}
	return string(b)
}

// Adapt turns the first model of s into encoder input: all chains
// concatenated; residues kept by name (20 amino acids, ASX, SEC, XAA, GLX,
// RNA A/G/C/U/T); hydrogens (names starting with H) dropped; the first
// record of each atom name kept (altlocs); atoms in canonical order, missing
// ones dropped; coordinates centred on the kept atoms' mean (computed in
// float64) and then rounded to float32. It returns an error when s has no
// model or no atom is kept. Adapt does not modify s.
func Adapt(s *structure.Structure) (*Input, error) {
	if s == nil || len(s.Models) == 0 {
		return nil, fmt.Errorf("bio2token: structure has no model")
	}
	in := &Input{}
	var xyz []float64
	for ci := range s.Models[0].Chains {
		ch := &s.Models[0].Chains[ci]
		for ri := range ch.Residues {
			res := &ch.Residues[ri]
			order, ok := canonical[res.Name]
			if !ok {
				continue
			}
			resIdx := int32(len(in.ResNames))
			in.ResNames = append(in.ResNames, res.Name)
			for _, name := range order {
				a := firstAtom(res.Atoms, name)
				if a == nil {
					continue
				}
				in.AtomRes = append(in.AtomRes, resIdx)
				in.AtomNames = append(in.AtomNames, name)
				xyz = append(xyz, a.X, a.Y, a.Z)
			}
		}
	}
	n := len(in.AtomNames)
	if n == 0 {
		return nil, fmt.Errorf("bio2token: structure %q has no atoms to tokenize", s.Name)
	}
	var mean [3]float64
	for i := 0; i < n; i++ {
		for k := 0; k < 3; k++ {
			mean[k] += xyz[3*i+k]
		}
	}
	for k := range mean {
		mean[k] /= float64(n)
	}
	in.Coords = make([]float32, 3*n)
	for i := 0; i < n; i++ {
		for k := 0; k < 3; k++ {
			in.Coords[3*i+k] = float32(xyz[3*i+k] - mean[k])
		}
	}
	return in, nil
}

// firstAtom returns the first non-hydrogen record named name, or nil.
func firstAtom(atoms []structure.Atom, name string) *structure.Atom {
	if strings.HasPrefix(name, "H") {
		return nil
	}
	for i := range atoms {
		if atoms[i].Name == name {
			return &atoms[i]
		}
	}
	return nil
}
