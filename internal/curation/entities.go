package curation

import (
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// entity is one gemmi Entity as far as curation needs it.
type entity struct {
	name      string
	polymer   bool // entity_type Polymer
	peptideL  bool // polymer_type PeptideL
	typed     bool // polymer_type known (from _entity_poly or check_polymer_type)
	subchains []string
}

// proteinSubchains maps label_asym_id to entity id for every subchain of
// an L-peptide entity, as exp222's protein_subchains reads gemmi's entity
// table after read_entry and clean_structure:
//
//   - entities are the _entity rows (id, optional type); an _entity_poly
//     row of the entity (first by entity_id) makes it a polymer of that
//     type, PeptideL exactly for "polypeptide(L)" (case-sensitive, as
//     gemmi's polymer_type_from_string);
//   - their subchains are the _struct_asym rows (id, entity_id) naming
//     them, or, without that category, the subchains of model 0 by their
//     first residue's label_entity_id;
//   - setup_entities' ensure_entities then gives every subchain of model 0
//     that no entity lists the entity named by its label_entity_id (or,
//     for a polymer without one, the chain name), created when missing,
//     and types a polymer entity without a type by check_polymer_type of
//     that subchain;
//   - entities are walked in order and a later one overwrites an earlier
//     one for the same subchain (a Python dict).
//
// gemmi's deduplicate_entities, which merges entities of identical
// _entity_poly_seq and references, is not applied: it changes only the
// entity id of a chain (its cluster look-up), never whether it is protein,
// and wwPDB entries do not repeat an entity.
func proteinSubchains(e *mmcif.Entry, m *structure.Model) map[string]string {
	var ents []*entity
	find := func(name string) *entity {
		for _, x := range ents {
			if x.name == name {
				return x
			}
		}
		return nil
	}
	if c := &e.Entity; c.Col("id") >= 0 {
		ci, ct := c.Col("id"), c.Col("type")
		pc := &e.EntityPoly
		pe, pt := pc.Col("entity_id"), pc.Col("type")
		for r := 0; r < c.Rows(); r++ {
			x := &entity{name: c.At(r, ci).Str()}
			etype := ""
			if ct >= 0 {
				etype = c.At(r, ct).Str()
			}
			x.polymer = etype == "polymer"
			if pe >= 0 && pt >= 0 {
				for pr := 0; pr < pc.Rows(); pr++ {
					if pc.At(pr, pe).Str() == x.name {
						if !knownEntityType(etype) {
							x.polymer = true
						}
						ptype := pc.At(pr, pt).Str()
						x.typed = knownPolymerType(ptype)
						x.peptideL = ptype == "polypeptide(L)"
						break
					}
				}
			}
			ents = append(ents, x)
		}
	}
	if c := &e.StructAsym; c.Col("id") >= 0 && c.Col("entity_id") >= 0 {
		ci, ce := c.Col("id"), c.Col("entity_id")
		for r := 0; r < c.Rows(); r++ {
			if x := find(c.At(r, ce).Str()); x != nil {
				x.subchains = append(x.subchains, c.At(r, ci).Str())
			}
		}
	} else {
		eachSubchain(m, func(ch *structure.Chain, span []structure.Residue) {
			if x := find(span[0].EntityID); x != nil && !contains(x.subchains, span[0].Subchain) {
				x.subchains = append(x.subchains, span[0].Subchain)
			}
		})
	}
	// ensure_entities
	entityOf := func(sub string) *entity {
		for _, x := range ents {
			if contains(x.subchains, sub) {
				return x
			}
		}
		return nil
	}
	eachSubchain(m, func(ch *structure.Chain, span []structure.Residue) {
		sub := span[0].Subchain
		x := entityOf(sub)
		if x == nil {
			name := span[0].EntityID
			et := span[0].Entity
			if name == "" {
				switch et {
				case structure.EntityPolymer, structure.EntityBranched:
					name = ch.Name
				case structure.EntityNonPolymer:
					name = span[0].Name + "!"
				case structure.EntityWater:
					name = "water"
				}
			}
			if name == "" {
				return
			}
			if x = find(name); x == nil {
				x = &entity{name: name}
				ents = append(ents, x)
			}
			x.polymer = et == structure.EntityPolymer // find_or_add's entity takes the subchain's type
			x.subchains = append(x.subchains, sub)
		}
		if x.polymer && !x.typed {
			x.typed = true
			x.peptideL = mmcif.IsPeptideL(span)
		}
	})
	out := make(map[string]string)
	for _, x := range ents {
		if x.peptideL {
			for _, s := range x.subchains {
				out[s] = x.name
			}
		}
	}
	return out
}

// eachSubchain calls f for every run of consecutive residues of one
// subchain in model m (gemmi's Chain::subchains()).
func eachSubchain(m *structure.Model, f func(*structure.Chain, []structure.Residue)) {
	for ci := range m.Chains {
		c := &m.Chains[ci]
		res := c.Residues
		for i := 0; i < len(res); {
			j := i + 1
			for j < len(res) && res[j].Subchain == res[i].Subchain {
				j++
			}
			f(c, res[i:j])
			i = j
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// knownEntityType reports whether gemmi's entity_type_from_string knows t
// (any other is Unknown).
func knownEntityType(t string) bool {
	switch t {
	case "polymer", "branched", "non-polymer", "water":
		return true
	}
	return false
}

// knownPolymerType reports whether gemmi's polymer_type_from_string knows
// t (any other is Unknown).
func knownPolymerType(t string) bool {
	switch t {
	case "polypeptide(L)", "polydeoxyribonucleotide", "polyribonucleotide",
		"polydeoxyribonucleotide/polyribonucleotide hybrid", "polypeptide(D)",
		"polysaccharide(D)", "other", "peptide nucleic acid",
		"cyclic-pseudo-peptide", "polysaccharide(L)":
		return true
	}
	return false
}
