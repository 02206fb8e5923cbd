package structure

import (
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/geom"
)

// Contact is a pair of residues, numbered by label_seq_id (or by position,
// see SeqNumbers; I < J), whose representative atoms lie D Å apart.
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

// SeqNumbers returns the numbers that Contacts gives residues: their
// label_seq_ids; or, when no residue has one (PDB-format files, and mmCIF
// files written without label_seq_id or with '.' throughout, as Rosetta
// writes them; gemmi 0.5.7 leaves label_seq empty there), their position in
// the list from 1, alternative residues at one position (consecutive
// residues with the same auth_seq_id and insertion code, the insertion code
// compared without case, as gemmi's first-conformer groups) sharing one.
// A residue without label_seq_id among others that have one keeps 0.
func SeqNumbers(residues []Residue, out []int) []int {
	out = out[:0]
	have := false
	for i := range residues {
		if residues[i].LabelSeq != 0 {
			have = true
			break
		}
	}
	n := 0
	for i := range residues {
		r := &residues[i]
		switch {
		case have:
			out = append(out, r.LabelSeq)
			continue
		case i == 0 || r.AuthSeq != residues[i-1].AuthSeq || r.ICode|0x20 != residues[i-1].ICode|0x20:
			n++
		}
		out = append(out, n)
	}
	return out
}

// Contacts returns the contact list of residues (normally a chain's
// Polymer()): every pair whose representative atoms (RepAtom) are strictly
// closer than cutoff and whose numbers (SeqNumbers: label_seq_ids, or
// positions when the residues have none) differ by at least minSep, sorted
// by (I, J) as those numbers. Distances are computed in float64 from
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
	num := SeqNumbers(residues, make([]int, 0, len(residues)))
	keep := func(i, j int) bool {
		d := num[idx[i]] - num[idx[j]]
		if d < 0 {
			d = -d
		}
		return d >= minSep
	}
	for _, p := range geom.Pairs(pts, cutoff, keep) {
		if p.D >= cutoff {
			continue
		}
		a, b := num[idx[p.I]], num[idx[p.J]]
		if a > b {
			a, b = b, a
		}
		contacts = append(contacts, Contact{I: a, J: b, D: p.D})
	}
	// Pairs come sorted by point index, and the numbers rise with it except
	// where alternative residues share one: sort (stably) only then
	byIJ := func(x, y Contact) int {
		if x.I != y.I {
			return x.I - y.I
		}
		return x.J - y.J
	}
	if !slices.IsSortedFunc(contacts, byIJ) {
		slices.SortStableFunc(contacts, byIJ)
	}
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
