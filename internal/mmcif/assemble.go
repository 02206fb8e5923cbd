package mmcif

import (
	"slices"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// entityTypeOf is gemmi 0.5.7's entity_type_from_string: exact,
// case-sensitive names; anything else is unknown.
func entityTypeOf(s []byte) structure.EntityType {
	switch string(s) {
	case "polymer":
		return structure.EntityPolymer
	case "non-polymer":
		return structure.EntityNonPolymer
	case "branched":
		return structure.EntityBranched
	case "water":
		return structure.EntityWater
	}
	return structure.EntityUnknown
}

// isWaterName is gemmi's Residue::is_water (HOH, WAT, DOD, H2O compared
// with ialpha4_id, which ignores case).
func isWaterName(n string) bool {
	b := []byte(n)
	return eqFold(b, "hoh") || eqFold(b, "wat") || eqFold(b, "dod") || eqFold(b, "h2o")
}

// sameSeqID is gemmi's SeqId::operator== between residues ri and rj: the
// same number (or both without one) and the same insertion code ignoring
// case. It is the group_key of gemmi's first-conformer iteration.
func (b *builder) sameSeqID(ri, rj int32) bool {
	x, y := &b.res[ri], &b.res[rj]
	return x.hasSeq == y.hasSeq && (!x.hasSeq || x.r.AuthSeq == y.r.AuthSeq) && x.r.ICode|0x20 == y.r.ICode|0x20
}

// positions is gemmi's ResidueSpan::length() on the residues res: the
// number of sequence positions, where consecutive residues with the same
// seq id (microheterogeneity: alternative residues at one position) count
// once.
func (b *builder) positions(res []int32) int {
	n := len(res)
	for k := 1; k < len(res); k++ {
		if b.sameSeqID(res[k], res[k-1]) {
			n--
		}
	}
	return n
}

// assignEntities sets Residue.Entity the way gemmi 0.5.7's
// make_structure_from_block does (fill_residue_entity_type), before chain
// parts are merged: each run of consecutive residues of one chain part
// sharing label_asym_id (gemmi's Chain::subchains()) takes the
// _entity.type of its entity. A subchain belongs to the entities that
// _struct_asym lists it under when that category is present; else to the
// entity (label_entity_id) of the first residue of each of its runs in the
// first model. Of several, the first in _entity order wins (gemmi's
// find_entity_of_subchain); an empty subchain ('.' or '?') has none. When
// the entity or its type is unknown, the run is Water if its first
// residue is water, Polymer if it spans more than one sequence position
// (positions: alternative residues at one position count once), NonPolymer
// otherwise.
func (b *builder) assignEntities(doc *document) {
	if b.entTypes == nil {
		b.entTypes, b.subEntity = map[string]entRec{}, map[string]entRec{}
	}
	types, subEntity := b.entTypes, b.subEntity
	clear(types)
	clear(subEntity)
	if t := &doc.entity; t.rows() > 0 {
		ci, ct := t.col("id"), t.col("type")
		if ci >= 0 && ct >= 0 {
			for r := 0; r < t.rows(); r++ {
				id := nullable(b.data, t.vals[r*len(t.tags)+ci])
				if _, dup := types[string(id)]; dup {
					continue // gemmi's get_entity finds the first
				}
				et := entityTypeOf(nullable(b.data, t.vals[r*len(t.tags)+ct]))
				types[b.in(id)] = entRec{et, int32(r)}
			}
		}
	}
	// add lists subchain sub under entity ent, as gemmi pushes it into
	// Entity::subchains; the first entity in _entity order is kept.
	add := func(sub, ent string) {
		e, ok := types[ent]
		if !ok || sub == "" {
			return
		}
		if old, seen := subEntity[sub]; !seen || e.row < old.row {
			subEntity[sub] = e
		}
	}
	if t := &doc.asym; t.rows() > 0 && t.col("id") >= 0 && t.col("entity_id") >= 0 {
		ci, ce := t.col("id"), t.col("entity_id")
		for r := 0; r < t.rows(); r++ {
			sub := nullable(b.data, t.vals[r*len(t.tags)+ci])
			ent := nullable(b.data, t.vals[r*len(t.tags)+ce])
			if _, ok := types[string(ent)]; ok && len(sub) > 0 {
				add(b.in(sub), string(ent))
			}
		}
	} else if len(types) > 0 {
		for pi := range b.parts {
			if b.parts[pi].model != 0 {
				continue
			}
			res := b.parts[pi].res
			for i := range res {
				if i == 0 || b.res[res[i]].r.Subchain != b.res[res[i-1]].r.Subchain {
					r := &b.res[res[i]].r
					add(r.Subchain, r.EntityID)
				}
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
			if e, ok := subEntity[sub]; ok {
				et = e.t
			}
			if et == structure.EntityUnknown {
				switch {
				case isWaterName(b.res[res[i]].r.Name):
					et = structure.EntityWater
				case b.positions(res[i:j]) > 1:
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

// entRec is an _entity row: its type and its row number.
type entRec struct {
	t   structure.EntityType
	row int32
}

// nullable returns the value's bytes, or nil for an unquoted '.' or '?'.
func nullable(data []byte, v val) []byte {
	s := data[v.s:v.e]
	if !v.q && len(s) == 1 && (s[0] == '.' || s[0] == '?') {
		return nil
	}
	return s
}

// arrays are the backing arrays of a structure's models, chains, residues
// and atoms, taken from an earlier result by recycle for assemble to reuse.
//
// assemble keeps them reachable from the structure without widening any
// slice the caller sees: each of the models, chains and residues arrays is
// one element longer than its visible part, and that last element (beyond
// the visible lengths, at cap-1) is a hidden link to the next array: the
// last Model's Chains is the whole chains array, the last Chain's Residues
// the whole residues array, the last Residue's Atoms the whole atoms array
// (each with length 0). Every visible slice is capped at its own end, so
// appending to one never writes into a neighbour; a caller that appends to
// st.Models only overwrites the link, and the next read allocates afresh.
type arrays struct {
	models   []structure.Model
	chains   []structure.Chain
	residues []structure.Residue
	atoms    []structure.Atom
}

// recycle takes st's arrays (see arrays) and empties st, keeping them
// reachable from it until assemble links the new ones.
func recycle(st *structure.Structure) arrays {
	var a arrays
	a.models = st.Models[:0]
	if c := cap(a.models); c > 0 {
		a.chains = a.models[:c][c-1].Chains[:0]
	}
	if c := cap(a.chains); c > 0 {
		a.residues = a.chains[:c][c-1].Residues[:0]
	}
	if c := cap(a.residues); c > 0 {
		a.atoms = a.residues[:c][c-1].Atoms[:0]
	}
	*st = structure.Structure{Models: a.models}
	return a
}

// grow returns s resliced to length n, with room for the hidden link at
// cap-1 beyond it; it allocates only when cap(s) <= n.
func grow[T any](s []T, n int) []T {
	return slices.Grow(s[:0], n+1)[:n]
}

// link stores the hidden link to next in the last element of s's array.
func link[T any](s []T, set func(last *T)) {
	set(&s[:cap(s)][cap(s)-1])
}

// chainRec is one chain of a model as assemble merges it: its name and
// residues (indexes into builder.res) in order.
type chainRec struct {
	name string
	res  []int32
}

// chainKey finds a chain by model and name while parts are merged.
type chainKey struct {
	model int32
	name  string
}

// assemble merges chain parts of the same name within each model (gemmi's
// merge_chain_parts, which read_structure applies by default), then lays the
// result out in st: the atoms in one array in final residue order, the
// residues, chains and models each in one array, reusing arr (see arrays).
func (b *builder) assemble(st *structure.Structure, name string, arr arrays) {
	st.Name = name
	if len(b.models) == 0 {
		return
	}
	// chains per model, merging parts by name in order of first appearance
	b.chainsOf = grow(b.chainsOf, len(b.models))
	chains := b.chainsOf
	for mi := range chains {
		chains[mi] = chains[mi][:0]
	}
	var seen map[chainKey]int
	if len(b.parts) > len(b.models) {
		if b.seen == nil {
			b.seen = make(map[chainKey]int, len(b.parts))
		}
		seen = b.seen
		clear(seen)
	}
	for pi := range b.parts {
		p := &b.parts[pi]
		if ci, ok := seen[chainKey{p.model, p.name}]; ok {
			c := &chains[p.model][ci]
			c.res = append(c.res[:len(c.res):len(c.res)], p.res...)
			continue
		}
		if seen != nil {
			seen[chainKey{p.model, p.name}] = len(chains[p.model])
		}
		chains[p.model] = append(chains[p.model], chainRec{p.name, p.res})
	}
	// final residue order and atom offsets
	order := b.order[:0]
	nChains := 0
	for _, cs := range chains {
		nChains += len(cs)
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
		// permute through the builder's spare copy, so that the atoms
		// stay in the array that st keeps
		b.spare = append(b.spare[:0], atoms...)
		copy(fill, start)
		for i, ri := range b.atomRes {
			atoms[fill[ri]] = b.spare[i]
			fill[ri]++
		}
	}
	residues := grow(arr.residues, len(order))
	for i, ri := range order {
		rr := &b.res[ri]
		residues[i] = rr.r
		residues[i].Atoms = atoms[start[ri] : start[ri]+rr.nAtoms : start[ri]+rr.nAtoms]
	}
	link(residues, func(r *structure.Residue) { *r = structure.Residue{Atoms: atoms[:0]} })
	allChains := grow(arr.chains, nChains)
	link(allChains, func(c *structure.Chain) { *c = structure.Chain{Residues: residues[:0]} })
	st.Models = grow(arr.models, len(b.models))
	link(st.Models, func(m *structure.Model) { *m = structure.Model{Chains: allChains[:0]} })
	pos, cpos := 0, 0
	for mi, cs := range chains {
		m := &st.Models[mi]
		m.Num = b.models[mi].num
		m.Chains = allChains[cpos : cpos+len(cs) : cpos+len(cs)]
		cpos += len(cs)
		for ci, c := range cs {
			m.Chains[ci] = structure.Chain{Name: c.name, Residues: residues[pos : pos+len(c.res) : pos+len(c.res)]}
			b.nameSubchains(&m.Chains[ci], c.res)
			pos += len(c.res)
		}
	}
}

// nameSubchains is what gemmi 0.5.7's setup_entities (which the reference
// generators call after read_structure) does to a merged chain in which
// some residue has no subchain (label_asym_id '.' or '?'):
// assign_subchains renames every residue's subchain after the chain name
// and the residue's entity type: "poly" for polymer residues, the seq id
// (number or '?', then the insertion code) for non-polymers, "wat" for
// waters, nothing for the rest. (Its add_entity_types changes nothing: every
// residue already has a type.) So the chain's polymer becomes its first run
// of polymer residues, whatever their label_asym_id. res are the chain's
// residues in b.res, in the order of c.Residues.
func (b *builder) nameSubchains(c *structure.Chain, res []int32) {
	empty := false
	for k := range c.Residues {
		if c.Residues[k].Subchain == "" {
			empty = true
			break
		}
	}
	if !empty {
		return
	}
	assignSubchains(c, func(k int) bool { return b.res[res[k]].hasSeq }, b.in)
}

// assignSubchains is gemmi's assign_subchains on one chain, for both
// readers: every residue's subchain becomes the chain name and its entity
// type's suffix ("poly"; the seq id, number or '?' then the insertion
// code, for non-polymers; "wat"; nothing for the rest). hasSeq(k) says
// whether residue k has a number; in interns the name.
func assignSubchains(c *structure.Chain, hasSeq func(k int) bool, in func([]byte) string) {
	var buf []byte
	for k := range c.Residues {
		r := &c.Residues[k]
		buf = append(buf[:0], c.Name...)
		switch r.Entity {
		case structure.EntityPolymer:
			buf = append(buf, "poly"...)
		case structure.EntityNonPolymer:
			if hasSeq(k) {
				buf = strconv.AppendInt(buf, int64(r.AuthSeq), 10)
			} else {
				buf = append(buf, '?')
			}
			if r.ICode != 0 {
				buf = append(buf, r.ICode)
			}
		case structure.EntityWater:
			buf = append(buf, "wat"...)
		}
		r.Subchain = in(buf)
	}
}
