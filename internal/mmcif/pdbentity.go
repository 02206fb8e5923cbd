package mmcif

import (
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// After a PDB file is read, gemmi 0.5.7's read_structure merges chain
// parts of the same name in each model (merge_chain_parts), and the
// reference generators' setup_entities then types every chain that has a
// residue without a subchain: a chain whose parts all ended in TER (or
// followed such a part) keeps the types the reader gave, any other gets
// add_entity_types (polyheur.hpp). Every chain's residues are then named
// after the chain (assign_subchain_names): "poly", the seq id, or "wat".

// assemble merges the parts, lays the atoms out in final residue order in
// one array (reusing arr, as the mmCIF assemble does), types the residues
// and names their subchains.
func (p *pdbReader) assemble(st *structure.Structure, arr arrays) {
	p.chains = slices.Grow(p.chains[:0], len(p.models))[:len(p.models)]
	for mi := range p.chains {
		p.chains[mi] = p.chains[mi][:0]
	}
	clear(p.seen)
	for pi := range p.parts {
		q := &p.parts[pi]
		k := chainKey{q.model, q.name}
		if ci, ok := p.seen[k]; ok {
			c := &p.chains[q.model][ci]
			c.res = append(c.res[:len(c.res):len(c.res)], q.res...)
			continue
		}
		p.seen[k] = len(p.chains[q.model])
		p.chains[q.model] = append(p.chains[q.model], chainRec{q.name, q.res})
	}
	order := p.order[:0]
	nChains := 0
	for _, cs := range p.chains {
		nChains += len(cs)
		for _, c := range cs {
			order = append(order, c.res...)
		}
	}
	p.order = order
	p.start = slices.Grow(p.start[:0], len(p.res))[:len(p.res)]
	off := int32(0)
	for _, ri := range order {
		p.start[ri] = off
		off += p.res[ri].nAtoms
	}
	atoms := p.atoms
	p.fill = append(p.fill[:0], p.start...)
	inPlace := true
	for i, ri := range p.atomRes {
		if p.fill[ri] != int32(i) {
			inPlace = false
			break
		}
		p.fill[ri]++
	}
	if !inPlace {
		p.spare = append(p.spare[:0], atoms...)
		copy(p.fill, p.start)
		for i, ri := range p.atomRes {
			atoms[p.fill[ri]] = p.spare[i]
			p.fill[ri]++
		}
	}
	residues := grow(arr.residues, len(order))
	for i, ri := range order {
		rr := &p.res[ri]
		residues[i] = rr.r
		s := p.start[ri]
		residues[i].Atoms = atoms[s : s+rr.nAtoms : s+rr.nAtoms]
	}
	link(residues, func(r *structure.Residue) { *r = structure.Residue{Atoms: atoms[:0]} })
	allChains := grow(arr.chains, nChains)
	link(allChains, func(c *structure.Chain) { *c = structure.Chain{Residues: residues[:0]} })
	st.Name = ""
	st.Models = grow(arr.models, len(p.models))
	link(st.Models, func(m *structure.Model) { *m = structure.Model{Chains: allChains[:0]} })
	pos, cpos := 0, 0
	for mi, cs := range p.chains {
		m := &st.Models[mi]
		m.Num = p.models[mi].num
		m.Chains = allChains[cpos : cpos+len(cs) : cpos+len(cs)]
		cpos += len(cs)
		for ci, c := range cs {
			n := len(c.res)
			m.Chains[ci] = structure.Chain{Name: c.name, Residues: residues[pos : pos+n : pos+n]}
			p.setupEntities(&m.Chains[ci], order[pos:pos+n])
			pos += n
		}
	}
}

// setupEntities is setup_entities' assign_subchains on one merged chain c,
// whose residues are p.res[idx[k]] in order.
func (p *pdbReader) setupEntities(c *structure.Chain, idx []int32) {
	typed := true
	for k := range c.Residues {
		if c.Residues[k].Entity == structure.EntityUnknown {
			typed = false
			break
		}
	}
	if !typed {
		p.addEntityTypes(c, idx)
	}
	assignSubchains(c, func(k int) bool { return p.res[idx[k]].hasSeq }, p.in)
}

// polymerType is gemmi's PolymerType as check_polymer_type returns it.
type polymerType uint8

const (
	polyUnknown polymerType = iota
	polyPeptideL
	polyPeptideD
	polyDNA
	polyRNA
	polyHybrid
)

// addEntityTypes is gemmi's add_entity_types(chain, overwrite=false): the
// residues from the first one up to the first that is not a polymer
// residue of the chain's polymer type (or is typed other than polymer)
// are Polymer; every other untyped one is Water or NonPolymer.
func (p *pdbReader) addEntityTypes(c *structure.Chain, idx []int32) {
	ptype := checkPolymerType(c.Residues)
	k := 0
	for ; k < len(c.Residues); k++ {
		r := &c.Residues[k]
		if r.Entity == structure.EntityUnknown {
			if !isPolymerResidue(r, p.res[idx[k]].het, ptype) {
				break
			}
			r.Entity = structure.EntityPolymer
		} else if r.Entity != structure.EntityPolymer {
			break
		}
	}
	for ; k < len(c.Residues); k++ {
		if r := &c.Residues[k]; r.Entity == structure.EntityUnknown {
			r.Entity = structure.EntityNonPolymer
			if isWaterName(r.Name) {
				r.Entity = structure.EntityWater
			}
		}
	}
}

// checkPolymerType is gemmi's check_polymer_type over a chain's residues:
// amino acids (tabulated, or untabulated with a CA) or nucleotides
// (tabulated, or with a P) among the untyped and polymer residues, more
// than half of all residues.
func checkPolymerType(res []structure.Residue) polymerType {
	if len(res) == 0 {
		return polyUnknown
	}
	var counts [kindELS + 1]int
	aa, na := 0, 0
	for k := range res {
		r := &res[k]
		if r.Entity != structure.EntityUnknown && r.Entity != structure.EntityPolymer {
			continue
		}
		if ri, ok := resTable[r.Name]; ok && ri.kind != kindUNKNOWN {
			counts[ri.kind]++
		} else if findAtom(r, "CA", "C") {
			aa++
		} else if findAtom(r, "P", "P") {
			na++
		}
	}
	aa += counts[kindAA] + counts[kindAAD] + counts[kindPAA] + counts[kindMAA]
	na += counts[kindRNA] + counts[kindDNA]
	switch {
	case 2*aa > len(res):
		if counts[kindAA] >= counts[kindAAD] {
			return polyPeptideL
		}
		return polyPeptideD
	case 2*na > len(res):
		switch {
		case counts[kindDNA] == 0:
			return polyRNA
		case counts[kindRNA] == 0:
			return polyDNA
		}
		return polyHybrid
	}
	return polyUnknown
}

// isPolymerResidue is gemmi's is_polymer_residue: a standard residue
// written as HETATM is not (a buffer); otherwise one of the polymer's kind
// (tabulated), or with a CA (peptides) or P (nucleic acids).
func isPolymerResidue(r *structure.Residue, het byte, pt polymerType) bool {
	ri, found := resTable[r.Name]
	found = found && ri.kind != kindUNKNOWN
	if found && ri.standard && het == 'H' {
		return false
	}
	switch pt {
	case polyPeptideL, polyPeptideD:
		if found {
			return ri.kind == kindAA || ri.kind == kindAAD || ri.kind == kindPAA || ri.kind == kindMAA
		}
		return findAtom(r, "CA", "C")
	case polyDNA:
		if found {
			return ri.kind == kindDNA
		}
		return findAtom(r, "P", "P")
	case polyRNA:
		if found {
			return ri.kind == kindRNA
		}
		return findAtom(r, "P", "P")
	case polyHybrid:
		if found {
			return ri.kind == kindDNA || ri.kind == kindRNA
		}
		return findAtom(r, "P", "P")
	}
	return false
}

// findAtom reports whether r has an atom of the name and element (gemmi's
// find_atom(name, '*', el): any altloc).
func findAtom(r *structure.Residue, name, el string) bool {
	for i := range r.Atoms {
		if r.Atoms[i].Name == name && r.Atoms[i].Element == el {
			return true
		}
	}
	return false
}
