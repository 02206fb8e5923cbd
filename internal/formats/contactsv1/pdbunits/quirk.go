package pdbunits

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/foldcorpus/foldcorpus/internal/curation"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Quirk is what pyconfind's 2-character chain names do to a multimer
// (exp222's corpus keeps it; shared/formats/contacts-v1-confind.md has the
// rule: stripped, "_" when blank, cut to two characters).
type Quirk struct {
	// Cut: a kept chain's name is not its pyconfind name (e.g. A10 -> A1,
	// AB1 -> AB): the document's chain_ids, asu_chain_ids are pyconfind's
	// names and entity_ids/cluster_ids lose the chains whose name changed.
	Cut bool
	// Merged: two kept chains share a pyconfind name, so pyconfind folds
	// the later copy into the earlier one's positions (5i55: 20 curated
	// chains, 9 in the document; a one-chain entry can collapse to a
	// monomer).
	Merged bool
	// Corrected: Options.FixChainIDs applied, the document is the
	// corrected one (every curated chain on the ring once, curation's
	// names).
	Corrected bool
}

// Touched reports whether the quirk changed the unit's document or
// outcome (Cut or Merged).
func (q Quirk) Touched() bool { return q.Cut || q.Merged }

// confindChain is pyconfind's chain id for a chain name.
func confindChain(name string) string {
	s := strings.TrimSpace(name)
	if s == "" {
		return "_"
	}
	if utf8.RuneCountInString(s) <= 2 {
		return s
	}
	_, n1 := utf8.DecodeRuneInString(s)
	_, n2 := utf8.DecodeRuneInString(s[n1:])
	return s[:n1+n2]
}

func quirkOf(kept []curation.Chain) Quirk {
	var q Quirk
	seen := make(map[string]bool, len(kept))
	for _, k := range kept {
		c := confindChain(k.ChainID)
		if c != k.ChainID {
			q.Cut = true
		}
		if seen[c] {
			q.Merged = true
		}
		seen[c] = true
	}
	return q
}

// nameAlphabet gives the analysed names of the corrected document.
const nameAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// distinctNames is the corrected document's input: st with every chain
// renamed to a distinct 2-character name in chain order (AA, AB, ...; the
// chain order, which orders pyconfind's positions, is unchanged, and the
// residues are shared, not copied), and the map back to curation's names.
func distinctNames(st *structure.Structure) (*structure.Structure, map[string]string, error) {
	if len(st.Models) == 0 {
		return st, map[string]string{}, nil
	}
	m := st.Models[0]
	n := len(nameAlphabet)
	if len(m.Chains) > n*n {
		return nil, nil, fmt.Errorf("%d chains: more than the %d distinct 2-character names", len(m.Chains), n*n)
	}
	back := make(map[string]string, len(m.Chains))
	chains := make([]structure.Chain, len(m.Chains))
	for i, c := range m.Chains {
		name := nameAlphabet[i/n:i/n+1] + nameAlphabet[i%n:i%n+1]
		if prev, ok := back[name]; ok {
			return nil, nil, fmt.Errorf("chains %s and %s both renamed %s", prev, c.Name, name)
		}
		back[name] = c.Name
		chains[i] = c
		chains[i].Name = name
	}
	m.Chains = chains
	cp := *st
	cp.Models = []structure.Model{m}
	return &cp, back, nil
}
