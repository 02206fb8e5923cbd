package gemmitest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

var (
	aminoAcids = []string{"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE", "LEU",
		"LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL"}
	// oddResidues: modified, unknown and untabulated names in polymers.
	oddResidues = []string{"MSE", "UNK", "SEP", "XYZ", "Q1Z", "DAL", "ala", "DA", "U"}
	ligands     = []string{"NAG", "SO4", "HEM", "GOL", "ZN", "XYZ", "ACE", "ALA"}
	waterNames  = []string{"HOH", "HOH", "HOH", "DOD", "WAT", "hoh", "H2O"}
)

// residue is one generated residue: its rows are written together or, for
// microheterogeneity, interleaved with its alternatives.
type residue struct {
	comp, authComp string
	seq            int
	icode          string // "" for none
	lseq           string // label_seq_id text
	sub, ent       string
	het            bool
	alt            string // altloc of every atom ("" for none)
	atoms          []genAtom
}

type genAtom struct {
	name, elem, alt string
	x, y, z         float64
	b               string
}

// generator holds one file's random choices.
type generator struct {
	r                           *rand.Rand
	nSub                        int
	icodeCol, entCol, lseqCol   bool
	authCols, modelCol, aligned bool
	entities                    map[string]string // id -> type
	entOrder                    []string
	polyEnts                    map[string]bool
	asym                        [][2]string // subchain, entity
	asymSeen                    map[string]bool
	nModels                     int
	quoteModel                  bool    // model numbers quoted (gemmi: a new chain part on every row)
	nullModel                   bool    // the one model's number is '?'
	quoteP                      float64 // probability that a string value is quoted
}

// chainPart is a run of one auth chain's residues in file order (a chain
// may come in several parts).
type chainPart struct {
	chain string
	res   []residue
}

func (g *generator) p(x float64) bool { return g.r.Float64() < x }

func (g *generator) pick(s []string) string { return s[g.r.IntN(len(s))] }

// subchain returns a fresh label_asym_id (or, rarely, '.').
func (g *generator) subchain() string {
	if g.p(0.03) {
		return "."
	}
	g.nSub++
	n, s := g.nSub-1, ""
	for {
		s = string(rune('A'+n%26)) + s
		n = n/26 - 1
		if n < 0 {
			return s
		}
	}
}

// entity registers entity id with its true type and returns the id the
// atoms name (rarely '?').
func (g *generator) entity(id, typ string) string {
	if _, ok := g.entities[id]; !ok {
		g.entities[id] = typ
		g.entOrder = append(g.entOrder, id)
	}
	if g.p(0.03) {
		return "?"
	}
	return id
}

func (g *generator) mapAsym(sub, ent string) {
	if sub != "." && !g.asymSeen[sub] {
		g.asymSeen[sub] = true
		g.asym = append(g.asym, [2]string{sub, ent})
	}
}

// atomsOf returns the atoms of a residue named comp around (x, y, z).
func (g *generator) atomsOf(comp string, x, y, z float64, water bool) []genAtom {
	var names []string
	switch {
	case water:
		names = []string{"O"}
	case comp == "GLY":
		names = []string{"N", "CA", "C", "O"}
	case len(comp) == 3 && !g.p(0.1):
		names = []string{"N", "CA", "C", "O", "CB", "CG"}[:4+g.r.IntN(3)]
	default:
		names = []string{"C1", "C2", "O1", "N1"}[:1+g.r.IntN(4)]
	}
	if !water && g.p(0.1) {
		names = append(names, "H")
	}
	var out []genAtom
	for i, n := range names {
		a := genAtom{name: n, elem: n[:1], b: fmt.Sprintf("%.2f", 20+80*g.r.Float64())}
		if g.p(0.01) {
			a.b = "?"
		}
		off := float64(i) * 0.7
		a.x, a.y, a.z = x+off*g.r.NormFloat64()*0.5, y+off*g.r.NormFloat64()*0.5, z+off*g.r.NormFloat64()*0.5
		if n == "CA" {
			a.x, a.y, a.z = x, y, z
		}
		out = append(out, a)
	}
	return out
}

// chainResidues generates one auth chain's residues in file order.
func (g *generator) chainResidues(ci int, pos *[3]float64) (poly, other []residue) {
	polyEnt := fmt.Sprint(ci + 1)
	if ci > 0 && g.p(0.3) {
		polyEnt = "1" // a second copy of entity 1
	}
	n := []int{0, 1, 1, 2, 3, 5, 8, 12, 16, 20}[g.r.IntN(10)]
	sub := g.subchain()
	ent := g.entity(polyEnt, "polymer")
	g.polyEnts[polyEnt] = true
	g.mapAsym(sub, polyEnt)
	seq := g.r.IntN(20) - 3
	// microheterogeneity at the first, a middle or the last position
	micro := map[int]bool{}
	for _, at := range []int{0, n / 2, n - 1} {
		if n > 0 && g.p(0.15) {
			micro[at] = true
		}
	}
	step := func() {
		d := [3]float64{g.r.NormFloat64(), g.r.NormFloat64(), g.r.NormFloat64()}
		l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
		for k := range pos {
			pos[k] += 3.8 * d[k] / l
		}
	}
	lseq := 0
	for i := 0; i < n; i++ {
		step()
		lseq++
		icode := ""
		if i > 0 && g.icodeCol && g.p(0.08) {
			icode = g.pick([]string{"A", "B", "a"})
		} else if i > 0 {
			seq++
			if g.p(0.1) {
				seq += 1 + g.r.IntN(3) // a gap
			}
		}
		k := 1
		if micro[i] {
			k = 2 + g.r.IntN(2)
		}
		het := g.p(0.08)
		lseqText := fmt.Sprint(lseq)
		if g.p(0.03) {
			lseqText = "." // a polymer residue without label_seq_id
		}
		used := map[string]bool{}
		for a := 0; a < k; a++ {
			comp := g.pick(aminoAcids)
			if g.p(0.1) {
				comp = g.pick(oddResidues)
			}
			if i == 0 && a == 0 && g.p(0.03) {
				comp = g.pick(waterNames) // a polymer subchain that starts with water
			}
			if used[comp] {
				continue
			}
			used[comp] = true
			r := residue{comp: comp, authComp: comp, seq: seq, icode: icode, lseq: lseqText, sub: sub, ent: ent, het: het}
			if k > 1 {
				r.alt = string(rune('A' + a))
			}
			r.atoms = g.atomsOf(comp, pos[0], pos[1], pos[2], false)
			if k == 1 && g.p(0.12) { // altlocs within the residue
				m := len(r.atoms)
				for j := 0; j < m; j++ {
					if g.p(0.5) {
						b := r.atoms[j]
						r.atoms[j].alt, b.alt = "A", "B"
						b.x += 0.3
						r.atoms = append(r.atoms, b)
					}
				}
			}
			poly = append(poly, r)
		}
	}
	// ligands and waters of this chain
	for l := g.r.IntN(3); l > 0; l-- {
		comp := g.pick(ligands)
		lsub := g.subchain()
		lent := g.entity("L"+comp, "non-polymer")
		g.mapAsym(lsub, "L"+comp)
		step()
		other = append(other, residue{comp: comp, authComp: comp, seq: 500 + len(other), lseq: ".", sub: lsub, ent: lent,
			het: true, atoms: g.atomsOf(comp, pos[0]+2, pos[1], pos[2], false)})
	}
	if nw := g.r.IntN(4); nw > 0 {
		wsub := g.subchain()
		went := g.entity("W", "water")
		g.mapAsym(wsub, "W")
		for w := 0; w < nw; w++ {
			comp := g.pick(waterNames)
			other = append(other, residue{comp: comp, authComp: comp, seq: 900 + w, lseq: ".", sub: wsub, ent: went,
				het: true, atoms: g.atomsOf(comp, pos[0]+3, pos[1]-2, pos[2], true)})
		}
	}
	if g.p(0.05) && len(poly) > 0 {
		poly[g.r.IntN(len(poly))].authComp = g.pick(aminoAcids) // auth_comp_id differs
	}
	return poly, other
}

// Generate writes one random mmCIF file: 1-3 chains (polymers of 0-20
// positions with altlocs, microheterogeneity at the first, middle or last
// position, insertion codes, HETATM and unknown residues; ligands and
// waters in the chain or after other chains), 1-3 models, with or without
// _entity, _entity_poly and _struct_asym (sometimes incomplete or wrong),
// models sometimes out of order, string values and model numbers sometimes
// quoted, optional columns left out, and column-aligned rows half the time.
func Generate(r *rand.Rand, name string) []byte {
	g := newGenerator(r)
	parts := g.chainParts()
	var b strings.Builder
	fmt.Fprintf(&b, "data_%s\n#\n", name)
	g.writeEntities(&b)
	g.writeStructAsym(&b)
	s := &atomSite{g: g, cols: g.atomSiteColumns()}
	b.WriteString("#\nloop_\n")
	for _, c := range s.cols {
		fmt.Fprintf(&b, "_atom_site.%s\n", c)
	}
	revisit := make([]bool, len(parts)) // an atom of the part's first residue comes last
	for pi := range revisit {
		revisit[pi] = len(parts[pi].res) > 1 && g.p(0.05)
	}
	for _, m := range g.modelOrder() {
		s.model(m, parts, revisit)
	}
	s.write(&b)
	b.WriteString("#\n")
	return []byte(b.String())
}

// newGenerator draws a file's layout: its optional columns, alignment,
// model count and quoting.
func newGenerator(r *rand.Rand) *generator {
	g := &generator{r: r, entities: map[string]string{}, polyEnts: map[string]bool{}, asymSeen: map[string]bool{}}
	g.icodeCol, g.entCol, g.lseqCol = g.p(0.8), g.p(0.9), g.p(0.9)
	g.authCols, g.aligned = g.p(0.5), g.p(0.5)
	g.nModels = []int{1, 1, 1, 2, 3}[r.IntN(5)]
	g.modelCol = g.nModels > 1 || g.p(0.7)
	g.quoteModel = g.modelCol && g.p(0.03)
	g.nullModel = g.modelCol && g.nModels == 1 && g.p(0.01)
	if g.p(0.3) { // quoted string values: the general tokenizer, as_string
		g.quoteP = 0.03
	}
	return g
}

// chainParts generates the file's 1-3 chains and returns their parts in
// file order: each chain's polymer (sometimes with a ligand inside) with
// its ligands and waters, or with those in a part after all chains.
func (g *generator) chainParts() []chainPart {
	var parts, tail []chainPart
	pos := [3]float64{}
	for ci := 0; ci < 1+g.r.IntN(3); ci++ {
		chain := string(rune('A' + ci))
		if ci > 0 && g.p(0.1) {
			chain = "A" // a second part of chain A
		}
		poly, other := g.chainResidues(ci, &pos)
		if len(other) > 0 && len(poly) > 2 && g.p(0.15) {
			// a ligand in the middle of the polymer
			m := 1 + g.r.IntN(len(poly)-1)
			poly = append(poly[:m:m], append([]residue{other[0]}, poly[m:]...)...)
			other = other[1:]
		}
		parts = append(parts, chainPart{chain, poly})
		if g.p(0.3) {
			tail = append(tail, chainPart{chain, other}) // after all chains, as PDB files put waters
		} else {
			parts[len(parts)-1].res = append(parts[len(parts)-1].res, other...)
		}
	}
	return append(parts, tail...)
}

// writeEntities writes the _entity loop (sometimes missing a row or with a
// wrong type) and sometimes _entity_poly, or nothing.
func (g *generator) writeEntities(b *strings.Builder) {
	if len(g.entOrder) == 0 || !g.p(0.6) {
		return
	}
	b.WriteString("loop_\n_entity.id\n_entity.type\n")
	for _, id := range g.entOrder {
		t := g.entities[id]
		switch {
		case g.p(0.05):
			continue // missing row
		case g.p(0.05):
			t = g.pick([]string{"weird", "branched", "non-polymer", "polymer", "water"})
		}
		fmt.Fprintf(b, "%s %s\n", id, t)
	}
	if g.p(0.5) {
		b.WriteString("#\nloop_\n_entity_poly.entity_id\n_entity_poly.type\n")
		for _, id := range g.entOrder {
			if g.polyEnts[id] {
				fmt.Fprintf(b, "%s 'polypeptide(L)'\n", id)
			}
		}
	}
}

// writeStructAsym sometimes writes the _struct_asym loop (a few subchains
// with a wrong entity).
func (g *generator) writeStructAsym(b *strings.Builder) {
	if len(g.asym) == 0 || !g.p(0.4) {
		return
	}
	b.WriteString("#\nloop_\n_struct_asym.id\n_struct_asym.entity_id\n")
	for _, a := range g.asym {
		if g.p(0.05) {
			a[1] = g.pick(g.entOrder)
		}
		fmt.Fprintf(b, "%s %s\n", a[0], a[1])
	}
}

// atomSiteColumns are the file's _atom_site columns, the optional ones as
// drawn.
func (g *generator) atomSiteColumns() []string {
	cols := []string{"group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id", "label_comp_id", "label_asym_id"}
	if g.entCol {
		cols = append(cols, "label_entity_id")
	}
	if g.lseqCol {
		cols = append(cols, "label_seq_id")
	}
	if g.icodeCol {
		cols = append(cols, "pdbx_PDB_ins_code")
	}
	cols = append(cols, "Cartn_x", "Cartn_y", "Cartn_z", "occupancy", "B_iso_or_equiv", "auth_seq_id")
	if g.authCols {
		cols = append(cols, "auth_comp_id", "auth_atom_id")
	}
	cols = append(cols, "auth_asym_id")
	if g.modelCol {
		cols = append(cols, "pdbx_PDB_model_num")
	}
	return cols
}

// modelOrder is the model numbers in file order (sometimes shuffled, e.g.
// model 2 first).
func (g *generator) modelOrder() []int {
	models := make([]int, g.nModels)
	for i := range models {
		models[i] = i + 1
	}
	if g.nModels > 1 && g.p(0.15) {
		g.r.Shuffle(len(models), func(i, j int) { models[i], models[j] = models[j], models[i] })
	}
	return models
}

// atomSite collects a file's _atom_site rows, each value as written.
type atomSite struct {
	g    *generator
	cols []string
	rows [][]string
	id   int // the last row's atom id
}

// row adds the row of atom a of residue r in model and auth chain, its x
// moved by jitter.
func (s *atomSite) row(model int, chain string, r *residue, a *genAtom, jitter float64) {
	s.id++
	alt := a.alt
	if r.alt != "" {
		alt = r.alt
	}
	group := "ATOM"
	if r.het {
		group = "HETATM"
	}
	v := map[string]string{
		"group_PDB": group, "id": fmt.Sprint(s.id), "type_symbol": a.elem, "label_atom_id": a.name,
		"label_alt_id": or(alt, "."), "label_comp_id": r.comp, "label_asym_id": r.sub, "label_entity_id": r.ent,
		"label_seq_id": r.lseq, "pdbx_PDB_ins_code": or(r.icode, "?"),
		"Cartn_x": fmt.Sprintf("%.3f", a.x+jitter), "Cartn_y": fmt.Sprintf("%.3f", a.y), "Cartn_z": fmt.Sprintf("%.3f", a.z),
		"occupancy": "1.00", "B_iso_or_equiv": a.b, "auth_seq_id": fmt.Sprint(r.seq), "auth_comp_id": r.authComp,
		"auth_atom_id": a.name, "auth_asym_id": chain, "pdbx_PDB_model_num": fmt.Sprint(model),
	}
	switch {
	case s.g.quoteModel:
		v["pdbx_PDB_model_num"] = "'" + v["pdbx_PDB_model_num"] + "'"
	case s.g.nullModel:
		v["pdbx_PDB_model_num"] = "?"
	}
	out := make([]string, len(s.cols))
	for i, c := range s.cols {
		out[i] = v[c]
		if quotable[c] && s.g.p(s.g.quoteP) {
			out[i] = "'" + out[i] + "'"
		}
	}
	s.rows = append(s.rows, out)
}

// model adds the rows of model m: every part (a later model sometimes
// lacks the last), and after a part marked in revisit an extra atom of its
// first residue.
func (s *atomSite) model(m int, parts []chainPart, revisit []bool) {
	jitter := 0.0
	if m > 1 {
		jitter = 0.1 * float64(m)
	}
	for pi, p := range parts {
		if m > 1 && pi == len(parts)-1 && len(parts) > 1 && s.g.p(0.2) {
			continue // a later model lacks a chain part
		}
		s.part(m, p, jitter)
		if revisit[pi] {
			a := genAtom{name: "OXT", elem: "O", x: p.res[0].atoms[0].x + 1, y: p.res[0].atoms[0].y, z: p.res[0].atoms[0].z, b: "50.00"}
			s.row(m, p.chain, &p.res[0], &a, jitter)
		}
	}
}

// part adds the rows of part p in model m, residue by residue; the
// alternatives of a microheterogeneous position have their atoms
// interleaved half the time.
func (s *atomSite) part(m int, p chainPart, jitter float64) {
	for i := 0; i < len(p.res); {
		j := i + 1
		for j < len(p.res) && p.res[i].alt != "" && p.res[j].alt != "" && p.res[j].seq == p.res[i].seq && p.res[j].icode == p.res[i].icode {
			j++
		}
		if j-i > 1 && s.g.p(0.5) {
			// microheterogeneity with its atoms interleaved
			for k := 0; ; k++ {
				wrote := false
				for q := i; q < j; q++ {
					if k < len(p.res[q].atoms) {
						s.row(m, p.chain, &p.res[q], &p.res[q].atoms[k], jitter)
						wrote = true
					}
				}
				if !wrote {
					break
				}
			}
		} else {
			for q := i; q < j; q++ {
				for k := range p.res[q].atoms {
					s.row(m, p.chain, &p.res[q], &p.res[q].atoms[k], jitter)
				}
			}
		}
		i = j
	}
}

// write writes the rows, their columns aligned when the file is.
func (s *atomSite) write(b *strings.Builder) {
	width := make([]int, len(s.cols))
	for _, rw := range s.rows {
		for i, v := range rw {
			width[i] = max(width[i], len(v))
		}
	}
	for _, rw := range s.rows {
		for i, v := range rw {
			if s.g.aligned {
				fmt.Fprintf(b, "%-*s ", width[i], v)
			} else {
				b.WriteString(v + " ")
			}
		}
		b.WriteString("\n")
	}
}

func or(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// quotable are the string columns whose values may be quoted (gemmi reads
// numeric ones from the raw token, quotes included).
var quotable = map[string]bool{"group_PDB": true, "type_symbol": true, "label_atom_id": true, "label_alt_id": true,
	"label_comp_id": true, "label_asym_id": true, "label_entity_id": true, "pdbx_PDB_ins_code": true,
	"auth_comp_id": true, "auth_atom_id": true, "auth_asym_id": true}
