package gemmitest

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

var entityNames = map[structure.EntityType]string{
	structure.EntityUnknown: "Unknown", structure.EntityPolymer: "Polymer",
	structure.EntityNonPolymer: "NonPolymer", structure.EntityBranched: "Branched",
	structure.EntityWater: "Water",
}

// Summarize is foldcorpus's reading of st in gemmi_read.py's terms: what
// `foldcorpus inspect --json` reports (models, chains, polymer residues,
// sequences, atoms, the principal chain's pLDDT mean and contacts) plus
// each residue's name, seq id, subchain, entity type and atom count.
// CADV2 is left empty.
func Summarize(file string, st *structure.Structure) Reading {
	r := Reading{File: file, Name: st.Name, Models: []Model{}, Contacts: [][3]float64{}}
	for mi := range st.Models {
		m := &st.Models[mi]
		mo := Model{Name: strconv.Itoa(m.Num), Chains: []Chain{}}
		for ci := range m.Chains {
			c := &m.Chains[ci]
			poly := c.Polymer()
			ch := Chain{Name: c.Name, NResidues: len(c.Residues), NPolymer: len(poly), Residues: []string{}}
			seq := make([]byte, len(poly))
			for k := range poly {
				seq[k] = mmcif.OneLetter(poly[k].Name)
			}
			ch.Sequence = string(seq)
			for k := range c.Residues {
				res := &c.Residues[k]
				var ls *int
				if res.LabelSeq != 0 {
					ls = &res.LabelSeq
				}
				ch.LabelSeqs = append(ch.LabelSeqs, ls)
				ch.NAtoms += len(res.Atoms)
				for _, a := range res.Atoms {
					alt := ""
					if a.AltLoc != 0 {
						alt = string(a.AltLoc)
					}
					ch.Atoms = append(ch.Atoms, Atom{Name: a.Name, AltLoc: alt, Element: a.Element,
						Values: [5]jsonFloat{jsonFloat(a.X), jsonFloat(a.Y), jsonFloat(a.Z), jsonFloat(a.Occ), jsonFloat(a.B)}})
					ch.Sums[0] += jsonFloat(a.B)
					ch.Sums[1] += jsonFloat(a.Occ)
					ch.Sums[2] += jsonFloat(a.X + a.Y + a.Z)
				}
				icode := ""
				if res.ICode != 0 {
					icode = string(res.ICode)
				}
				ch.Residues = append(ch.Residues, fmt.Sprintf("%s %d%s %s %s %d", res.Name, res.AuthSeq, icode,
					res.Subchain, entityNames[res.Entity], len(res.Atoms)))
			}
			mo.Chains = append(mo.Chains, ch)
		}
		r.Models = append(r.Models, mo)
	}
	if len(st.Models) == 0 || len(st.Models[0].Chains) == 0 {
		return r
	}
	poly := st.Models[0].PrincipalChain().Polymer()
	var sum float64
	n := 0
	for k := range poly {
		if a := structure.CAAtom(&poly[k]); a != nil {
			sum += float64(a.B)
			n++
		}
	}
	if n > 0 {
		mean := jsonFloat(sum / float64(n))
		r.PLDDTMean = &mean
	}
	cs, _ := structure.Contacts(poly, 8.0, 6)
	for _, c := range cs {
		r.Contacts = append(r.Contacts, [3]float64{float64(c.I), float64(c.J), c.D})
	}
	slices.SortStableFunc(r.Contacts, func(a, b [3]float64) int { return slices.Compare(a[:], b[:]) })
	return r
}

// Diff lists where ours differs from gemmi's reading g (CADV2 aside), or
// nil when they agree. Model names are compared only when gemmi's is an
// integer (foldcorpus keeps model numbers).
func Diff(g, ours Reading) []string {
	var d []string
	if g.Error != "" {
		return []string{fmt.Sprintf("gemmi fails (%s), foldcorpus reads %d models", g.Error, len(ours.Models))}
	}
	if g.Name != ours.Name {
		d = append(d, fmt.Sprintf("block name %q, gemmi %q", ours.Name, g.Name))
	}
	if len(g.Models) != len(ours.Models) {
		return append(d, fmt.Sprintf("%d models, gemmi %d", len(ours.Models), len(g.Models)))
	}
	for mi, gm := range g.Models {
		om := ours.Models[mi]
		if _, err := strconv.Atoi(gm.Name); err == nil && gm.Name != om.Name {
			d = append(d, fmt.Sprintf("model %d: name %s, gemmi %s", mi, om.Name, gm.Name))
		}
		if len(gm.Chains) != len(om.Chains) {
			d = append(d, fmt.Sprintf("model %s: %d chains, gemmi %d", gm.Name, len(om.Chains), len(gm.Chains)))
			continue
		}
		for ci, gc := range gm.Chains {
			oc := om.Chains[ci]
			for k, what := range []string{"B-factor", "occupancy", "x+y+z"} {
				if !same(float64(gc.Sums[k]), float64(oc.Sums[k])) {
					d = append(d, fmt.Sprintf("model %s chain %d: %s sum %v, gemmi %v", gm.Name, ci, what, oc.Sums[k], gc.Sums[k]))
				}
			}
			if gc.Name != oc.Name || gc.NResidues != oc.NResidues || gc.NPolymer != oc.NPolymer ||
				gc.NAtoms != oc.NAtoms || gc.Sequence != oc.Sequence || !slices.Equal(gc.Residues, oc.Residues) {
				d = append(d, fmt.Sprintf("model %s chain %d:\n  ours  %s res %d poly %d atoms %d seq %q %q\n  gemmi %s res %d poly %d atoms %d seq %q %q",
					gm.Name, ci, oc.Name, oc.NResidues, oc.NPolymer, oc.NAtoms, oc.Sequence, oc.Residues,
					gc.Name, gc.NResidues, gc.NPolymer, gc.NAtoms, gc.Sequence, gc.Residues))
			}
			d = append(d, diffAtoms(gm.Name, ci, gc.Atoms, oc.Atoms)...)
			if !slices.EqualFunc(gc.LabelSeqs, oc.LabelSeqs, func(a, b *int) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }) {
				d = append(d, fmt.Sprintf("model %s chain %d: label_seq %v, gemmi %v", gm.Name, ci, fmtInts(oc.LabelSeqs), fmtInts(gc.LabelSeqs)))
			}
		}
	}
	if (g.PLDDTMean == nil) != (ours.PLDDTMean == nil) || g.PLDDTMean != nil && !same(float64(*g.PLDDTMean), float64(*ours.PLDDTMean)) {
		d = append(d, fmt.Sprintf("pLDDT mean %v, gemmi %v", fmtPtr(ours.PLDDTMean), fmtPtr(g.PLDDTMean)))
	}
	if len(g.Contacts) != len(ours.Contacts) {
		d = append(d, fmt.Sprintf("%d contacts, gemmi %d", len(ours.Contacts), len(g.Contacts)))
	} else {
		for k, gc := range g.Contacts {
			oc := ours.Contacts[k]
			if gc[0] != oc[0] || gc[1] != oc[1] || math.Abs(gc[2]-oc[2]) > 1e-9 {
				d = append(d, fmt.Sprintf("contact %d: %v, gemmi %v", k, oc, gc))
				break
			}
		}
	}
	return d
}

// diffAtoms lists the first atom where two chains' atoms differ (name,
// altloc, element, coordinates, occupancy, B: every value exactly).
func diffAtoms(model string, ci int, g, ours []Atom) []string {
	if len(g) != len(ours) {
		return []string{fmt.Sprintf("model %s chain %d: %d atoms listed, gemmi %d", model, ci, len(ours), len(g))}
	}
	for k := range g {
		a, b := g[k], ours[k]
		eq := a.Name == b.Name && a.AltLoc == b.AltLoc && a.Element == b.Element
		for i := range a.Values {
			eq = eq && same(float64(a.Values[i]), float64(b.Values[i]))
		}
		if !eq {
			return []string{fmt.Sprintf("model %s chain %d atom %d: %+v, gemmi %+v", model, ci, k, b, a)}
		}
	}
	return nil
}

func fmtInts(p []*int) []string {
	s := make([]string, len(p))
	for i, v := range p {
		s[i] = "none"
		if v != nil {
			s[i] = strconv.Itoa(*v)
		}
	}
	return s
}

// same reports whether two sums of the same values in the same order
// agree: exactly, NaN equal to NaN.
func same(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

func fmtPtr(p *jsonFloat) string {
	if p == nil {
		return "none"
	}
	return strconv.FormatFloat(float64(*p), 'g', -1, 64)
}
