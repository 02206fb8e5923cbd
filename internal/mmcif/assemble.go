package mmcif

import (
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

func entityTypeOf(s []byte) structure.EntityType {
	switch {
	case eqFold(s, "polymer"):
		return structure.EntityPolymer
	case eqFold(s, "non-polymer"):
		return structure.EntityNonPolymer
	case eqFold(s, "branched"):
		return structure.EntityBranched
	case eqFold(s, "water"):
		return structure.EntityWater
	}
	return structure.EntityUnknown
}

// isWaterName is gemmi's water test (case-insensitive, as gemmi 0.5.7 does).
func isWaterName(n string) bool {
	b := []byte(n)
	return eqFold(b, "hoh") || eqFold(b, "wat") || eqFold(b, "dod") || eqFold(b, "h2o")
}

// assignEntities sets Residue.Entity the way gemmi 0.5.7 does when it reads
// mmCIF: each run of consecutive residues of one chain part sharing
// label_asym_id (gemmi's Chain::subchains()) takes the _entity.type of its
// entity, found through _struct_asym (subchain -> entity) when that
// category is present, else through the label_entity_id of the first
// residue of the subchain. When the entity or its type is unknown, the run
// is Water if its first residue is water, Polymer if it has more than one
// residue, NonPolymer otherwise.
func (b *builder) assignEntities(doc *document) {
	types := map[string]structure.EntityType{}
	if t := &doc.entity; t.rows() > 0 {
		ci, ct := t.col("id"), t.col("type")
		if ci >= 0 {
			for r := 0; r < t.rows(); r++ {
				v := t.vals[r*len(t.tags)+ci]
				id := string(nullable(b.data, v))
				if _, dup := types[id]; dup {
					continue
				}
				et := structure.EntityUnknown
				if ct >= 0 {
					et = entityTypeOf(nullable(b.data, t.vals[r*len(t.tags)+ct]))
				}
				types[id] = et
			}
		}
	}
	subEntity := map[string]string{}
	if t := &doc.asym; t.rows() > 0 && t.col("id") >= 0 && t.col("entity_id") >= 0 {
		ci, ce := t.col("id"), t.col("entity_id")
		for r := 0; r < t.rows(); r++ {
			sub := string(nullable(b.data, t.vals[r*len(t.tags)+ci]))
			ent := string(nullable(b.data, t.vals[r*len(t.tags)+ce]))
			if _, ok := types[ent]; !ok {
				continue
			}
			if _, dup := subEntity[sub]; !dup {
				subEntity[sub] = ent
			}
		}
	} else {
		for i := range b.res {
			r := &b.res[i].r
			if _, ok := types[r.EntityID]; !ok {
				continue
			}
			if _, dup := subEntity[r.Subchain]; !dup {
				subEntity[r.Subchain] = r.EntityID
			}
		}
	}
	for pi := range b.parts {
		res := b.parts[pi].res
		for i := 0; i < len(res); {
			j := i + 1
			sub := b.res[res[i]].r.Subchain
			for j < len(res) && b.res[res[j]].r.Subchain == sub {
				j++
			}
			et := structure.EntityUnknown
			if ent, ok := subEntity[sub]; ok {
				et = types[ent]
			}
			if et == structure.EntityUnknown {
				switch {
				case isWaterName(b.res[res[i]].r.Name):
					et = structure.EntityWater
				case j-i > 1:
					et = structure.EntityPolymer
				default:
					et = structure.EntityNonPolymer
				}
			}
			for k := i; k < j; k++ {
				b.res[res[k]].r.Entity = et
			}
			i = j
		}
	}
}

// nullable returns the value's bytes, or nil for an unquoted '.' or '?'.
func nullable(data []byte, v val) []byte {
	s := data[v.s:v.e]
	if !v.q && len(s) == 1 && (s[0] == '.' || s[0] == '?') {
		return nil
	}
	return s
}

// assemble merges chain parts of the same name within each model (gemmi's
// merge_chain_parts, which read_structure applies by default), then lays the
// atoms out in one backing array in final residue order.
func (b *builder) assemble(name string) *structure.Structure {
	st := &structure.Structure{Name: name}
	if len(b.models) == 0 {
		return st
	}
	// chains per model, merging parts by name in order of first appearance
	type chainRec struct {
		name string
		res  []int32
	}
	chains := make([][]chainRec, len(b.models))
	type key struct {
		model int32
		name  string
	}
	var seen map[key]int
	if len(b.parts) > len(b.models) {
		seen = make(map[key]int, len(b.parts))
	}
	for pi := range b.parts {
		p := &b.parts[pi]
		if ci, ok := seen[key{p.model, p.name}]; ok {
			c := &chains[p.model][ci]
			c.res = append(c.res[:len(c.res):len(c.res)], p.res...)
			continue
		}
		if seen != nil {
			seen[key{p.model, p.name}] = len(chains[p.model])
		}
		chains[p.model] = append(chains[p.model], chainRec{p.name, p.res})
	}
	// final residue order and atom offsets
	order := b.order[:0]
	for _, cs := range chains {
		for _, c := range cs {
			order = append(order, c.res...)
		}
	}
	b.order = order
	b.start = slices.Grow(b.start[:0], len(b.res))[:len(b.res)]
	start := b.start
	off := int32(0)
	for _, ri := range order {
		start[ri] = off
		off += b.res[ri].nAtoms
	}
	atoms := b.atoms
	inPlace := true
	b.fill = slices.Grow(b.fill[:0], len(b.res))[:len(b.res)]
	fill := b.fill
	copy(fill, start)
	for i, ri := range b.atomRes {
		if fill[ri] != int32(i) {
			inPlace = false
			break
		}
		fill[ri]++
	}
	if !inPlace {
		atoms = make([]structure.Atom, len(b.atoms))
		copy(fill, start)
		for i, ri := range b.atomRes {
			atoms[fill[ri]] = b.atoms[i]
			fill[ri]++
		}
	}
	residues := make([]structure.Residue, len(order))
	for i, ri := range order {
		rr := &b.res[ri]
		residues[i] = rr.r
		residues[i].Atoms = atoms[start[ri] : start[ri]+rr.nAtoms : start[ri]+rr.nAtoms]
	}
	st.Models = make([]structure.Model, len(b.models))
	pos := 0
	for mi, cs := range chains {
		m := &st.Models[mi]
		m.Num = b.models[mi].num
		m.Chains = make([]structure.Chain, len(cs))
		for ci, c := range cs {
			m.Chains[ci] = structure.Chain{Name: c.name, Residues: residues[pos : pos+len(c.res) : pos+len(c.res)]}
			pos += len(c.res)
		}
	}
	return st
}
