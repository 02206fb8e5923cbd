// Package synth makes up small protein structures and writes them as valid
// AlphaFold-DB-style mmCIF (one polymer chain, backbone + CB atoms, pLDDT in
// B_iso_or_equiv), and builds sample manifests over them, so that a fresh
// clone can run a real end-to-end build without ../shared.
//
// Everything is a pure function of its arguments: the same seed and index give
// the same bytes.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

var aminoAcids = []string{"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
	"LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL"}

var oneLetter = map[string]byte{"ALA": 'A', "ARG": 'R', "ASN": 'N', "ASP": 'D', "CYS": 'C', "GLN": 'Q',
	"GLU": 'E', "GLY": 'G', "HIS": 'H', "ILE": 'I', "LEU": 'L', "LYS": 'K', "MET": 'M', "PHE": 'F',
	"PRO": 'P', "SER": 'S', "THR": 'T', "TRP": 'W', "TYR": 'Y', "VAL": 'V'}

// Protein is one made-up structure.
type Protein struct {
	EntryID  string
	Residues []string  // 3-letter names
	PLDDT    []float64 // per residue
	CIF      []byte
}

// GlobalPLDDT is the mean per-residue pLDDT.
func (p Protein) GlobalPLDDT() float64 {
	var s float64
	for _, v := range p.PLDDT {
		s += v
	}
	return s / float64(len(p.PLDDT))
}

// EntryID names the i-th synthetic protein.
func EntryID(i int) string { return fmt.Sprintf("AF-SYN%06d-F1", i) }

// Make builds protein i of the family seeded by seed, with minLen..maxLen
// residues. Geometry: a slightly irregular helix-turn bundle, so that both
// short- and long-range CB contacts exist.
func Make(seed uint64, i, minLen, maxLen int) Protein {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	n := minLen
	if maxLen > minLen {
		n += r.IntN(maxLen - minLen + 1)
	}
	p := Protein{EntryID: EntryID(i), Residues: make([]string, n), PLDDT: make([]float64, n)}
	for k := range p.Residues {
		p.Residues[k] = aminoAcids[r.IntN(len(aminoAcids))]
		// pLDDT in [40, 98), two decimals as AFDB writes them.
		p.PLDDT[k] = math.Round((40+58*r.Float64())*100) / 100
	}
	p.CIF = render(p, r)
	return p
}

func render(p Protein, r *rand.Rand) []byte {
	var b strings.Builder
	b.Grow(len(p.Residues) * 5 * 100)
	fmt.Fprintf(&b, "data_%s\n#\n_entry.id %s\n#\n", p.EntryID, p.EntryID)
	b.WriteString("loop_\n_entity.id\n_entity.type\n_entity.pdbx_description\n1 polymer 'Synthetic protein'\n#\n")
	seq := make([]byte, len(p.Residues))
	for k, name := range p.Residues {
		seq[k] = oneLetter[name]
	}
	fmt.Fprintf(&b, "_entity_poly.entity_id 1\n_entity_poly.type 'polypeptide(L)'\n_entity_poly.pdbx_seq_one_letter_code_can %s\n#\n", seq)
	b.WriteString("loop_\n_entity_poly_seq.entity_id\n_entity_poly_seq.num\n_entity_poly_seq.mon_id\n_entity_poly_seq.hetero\n")
	for k, name := range p.Residues {
		fmt.Fprintf(&b, "1 %d %s n\n", k+1, name)
	}
	b.WriteString("#\nloop_\n")
	for _, f := range []string{"group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id",
		"label_comp_id", "label_asym_id", "label_entity_id", "label_seq_id", "pdbx_PDB_ins_code",
		"Cartn_x", "Cartn_y", "Cartn_z", "occupancy", "B_iso_or_equiv", "auth_seq_id",
		"auth_asym_id", "pdbx_PDB_model_num"} {
		b.WriteString("_atom_site." + f + "\n")
	}
	// Helices of 18 residues, alternating direction, packed side by side.
	id := 1
	for k, name := range p.Residues {
		h, j := k/18, k%18
		if h%2 == 1 {
			j = 17 - j
		}
		theta := float64(j) * 100 * math.Pi / 180
		cx, cy := float64(h)*9.5, 0.0
		ca := [3]float64{cx + 2.3*math.Cos(theta), cy + 2.3*math.Sin(theta), 1.5 * float64(j)}
		jit := func() float64 { return (r.Float64() - 0.5) * 0.3 }
		atoms := []struct {
			name, el string
			d        [3]float64
		}{
			{"N", "N", [3]float64{-0.5, 1.3, -0.6}},
			{"CA", "C", [3]float64{0, 0, 0}},
			{"C", "C", [3]float64{1.4, 0.3, 0.5}},
			{"O", "O", [3]float64{1.8, 1.4, 0.9}},
		}
		if name != "GLY" {
			atoms = append(atoms, struct {
				name, el string
				d        [3]float64
			}{"CB", "C", [3]float64{1.2 * math.Cos(theta), 1.2 * math.Sin(theta), -0.7}})
		}
		for _, a := range atoms {
			fmt.Fprintf(&b, "ATOM %d %s %s . %s A 1 %d ? %s %s %s 1.00 %s %d A 1\n",
				id, a.el, a.name, name, k+1,
				coord(ca[0]+a.d[0]+jit()), coord(ca[1]+a.d[1]+jit()), coord(ca[2]+a.d[2]+jit()),
				strconv.FormatFloat(p.PLDDT[k], 'f', 2, 64), k+1)
			id++
		}
	}
	b.WriteString("#\n")
	return []byte(b.String())
}

func coord(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
