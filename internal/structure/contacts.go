package structure

import (
	"sort"

	"github.com/foldcorpus/foldcorpus/internal/geom"
)

// Contact is a pair of residues, numbered by label_seq_id (I < J in
// residue order), whose representative atoms lie D Å apart.
type Contact struct {
	I, J int
	D    float64
}

// RepAtom returns the residue's representative atom for contact maps: the
// first atom named CB, or CA for glycine (first altloc in file order, as
// gemmi's Residue::find_atom with altloc '*' returns). It returns nil when
// the residue lacks that atom.
func RepAtom(r *Residue) *Atom {
	want := "CB"
	if r.Name == "GLY" {
		want = "CA"
	}
	for i := range r.Atoms {
		if r.Atoms[i].Name == want {
			return &r.Atoms[i]
		}
	}
	return nil
}

// CAAtom returns the first atom named CA, or nil.
func CAAtom(r *Residue) *Atom {
	for i := range r.Atoms {
		if r.Atoms[i].Name == "CA" {
			return &r.Atoms[i]
		}
	}
	return nil
}

// Contacts returns the contact list of residues (normally a chain's
// Polymer()): every pair whose representative atoms (RepAtom) are strictly
// closer than cutoff and whose label_seq_ids differ by at least minSep,
// sorted by (I, J) as label_seq_ids. Distances are computed in float64 from
// the parsed coordinates. skipped holds the indexes (into residues) of
// residues without a representative atom; they take part in no contact.
// It uses a cell list, so the cost grows linearly with the residue count.
func Contacts(residues []Residue, cutoff float64, minSep int) (contacts []Contact, skipped []int) {
	pts := make([]geom.Vec3, 0, len(residues))
	idx := make([]int, 0, len(residues))
	for i := range residues {
		a := RepAtom(&residues[i])
		if a == nil {
			skipped = append(skipped, i)
			continue
		}
		pts = append(pts, geom.Vec3{a.X, a.Y, a.Z})
		idx = append(idx, i)
	}
	keep := func(i, j int) bool {
		d := residues[idx[i]].LabelSeq - residues[idx[j]].LabelSeq
		if d < 0 {
			d = -d
		}
		return d >= minSep
	}
	for _, p := range geom.Pairs(pts, cutoff, keep) {
		if p.D >= cutoff {
			continue
		}
		a, b := residues[idx[p.I]].LabelSeq, residues[idx[p.J]].LabelSeq
		if a > b {
			a, b = b, a
		}
		contacts = append(contacts, Contact{I: a, J: b, D: p.D})
	}
	sort.SliceStable(contacts, func(x, y int) bool {
		if contacts[x].I != contacts[y].I {
			return contacts[x].I < contacts[y].I
		}
		return contacts[x].J < contacts[y].J
	})
	return contacts, skipped
}

// PrincipalChain returns the chain that per-structure summaries (contact
// map, pLDDT mean) describe, as the corpus reference does: the chain named
// "A" when there is one, else the first chain; nil for an empty model.
func (m *Model) PrincipalChain() *Chain {
	for i := range m.Chains {
		if m.Chains[i].Name == "A" {
			return &m.Chains[i]
		}
	}
	if len(m.Chains) == 0 {
		return nil
	}
	return &m.Chains[0]
}
