package curation

import (
	"math"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// The AF3/Protenix numbers exp222 uses (curate.py), in Angstrom.
const (
	// ClashDistance: an atom clashes when another chain's atom is closer
	// than this (squared distances compared, float64, strictly less).
	ClashDistance = 1.7
	// ClashFraction: a chain is dropped when at least this fraction of
	// its heavy atoms clash (count >= fraction * heavy).
	ClashFraction = 1.0 / 3.0
	// MaxAdjacentCADistance: consecutively numbered residues whose CA
	// atoms are farther apart than this (strictly) break the chain.
	MaxAdjacentCADistance = 10.0
)

// knownResidue reports whether contacts-v1 understands the residue name
// (exp222's _KNOWN_RESIDUES; the name trimmed and upper-cased).
func knownResidue(name string) bool {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
		"LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL",
		"HSD", "HSE", "HSC", "HSP", "HIP", "MSE", "CSO", "SEC", "SEP", "TPO",
		"PTR":
		return true
	}
	return false
}

// curateChains is exp222's curate_chains over a cleaned model: every chain
// in order, the first failed test naming its drop reason (not_protein,
// all_unknown_residues, no_resolved_residues, too_short, too_long,
// ca_break, clashing), the others kept. protein maps the model's
// protein subchains to entity ids.
func curateChains(m *structure.Model, protein map[string]string, minRes, maxRes int) Chains {
	clashes := clashingAtomCounts(m)
	var out Chains
	for ci := range m.Chains {
		c := &m.Chains[ci]
		var residues []*structure.Residue
		entityID := ""
		for ri := range c.Residues {
			r := &c.Residues[ri]
			if ent, ok := protein[r.Subchain]; ok {
				residues = append(residues, r)
				if entityID == "" || ent < entityID {
					entityID = ent
				}
			}
		}
		if len(residues) == 0 {
			out.drop(c.Name, NotProtein)
			continue
		}
		known := false
		for _, r := range residues {
			if knownResidue(r.Name) {
				known = true
				break
			}
		}
		if !known {
			out.drop(c.Name, AllUnknownResidues)
			continue
		}
		resolved := residues[:0:0]
		heavy := 0
		for _, r := range residues {
			if len(r.Atoms) > 0 {
				resolved = append(resolved, r)
				heavy += len(r.Atoms)
			}
		}
		switch {
		case len(resolved) == 0:
			out.drop(c.Name, NoResolvedResidues)
			continue
		case len(resolved) < minRes:
			out.drop(c.Name, TooShort)
			continue
		case len(resolved) > maxRes:
			out.drop(c.Name, TooLong)
			continue
		case hasAdjacentCABreak(resolved):
			out.drop(c.Name, CABreak)
			continue
		case heavy > 0 && float64(clashes[c.Name]) >= ClashFraction*float64(heavy):
			out.drop(c.Name, Clashing)
			continue
		}
		out.Kept = append(out.Kept, Chain{ChainID: c.Name, ASUChainID: c.Name, EntityID: entityID, Residues: len(resolved)})
	}
	return out
}

// hasAdjacentCABreak is exp222's _has_adjacent_ca_break: two residues in a
// row, numbered n and n+1, both with a CA, farther apart than
// MaxAdjacentCADistance (gemmi's float64 sqrt(dx*dx + dy*dy + dz*dz)); a
// residue without CA breaks the run.
func hasAdjacentCABreak(res []*structure.Residue) bool {
	var prev *structure.Atom
	prevNum := 0
	for _, r := range res {
		ca := findAtom(r, "CA")
		if ca != nil && prev != nil && prevNum == r.AuthSeq-1 && caDistance(prev, ca) > MaxAdjacentCADistance {
			return true
		}
		prev, prevNum = ca, r.AuthSeq
	}
	return false
}

func caDistance(a, b *structure.Atom) float64 {
	dx, dy, dz := a.X-b.X, a.Y-b.Y, a.Z-b.Z
	return math.Sqrt(float64(float64(float64(dx*dx)+float64(dy*dy)) + float64(dz*dz)))
}

func findAtom(r *structure.Residue, name string) *structure.Atom {
	for k := range r.Atoms {
		if r.Atoms[k].Name == name {
			return &r.Atoms[k]
		}
	}
	return nil
}
