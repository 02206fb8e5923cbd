package gemmitest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

var (
	// pdbPolymer: residue names of generated PDB chains (amino acids,
	// nucleotides, modified, untabulated, lower case).
	pdbPolymer = []string{"ALA", "GLY", "SER", "LEU", "LYS", "PRO", "MET", "TRP", "MSE", "SEP", "UNK", "XYZ", "ala", "DAL"}
	pdbNucleic = []string{"DA", "DC", "DG", "DT", "A", "C", "G", "U"}
	// pdbLigands: ligands, ions (atom name = element, in column 13) and
	// standard residues written as HETATM.
	pdbLigands = []string{"NAG", "SO4", "HEM", "GOL", "ZN", "CA", "MG", "ALA", "GLY", "XYZ"}
)

// pdbGen holds one PDB file's random choices.
type pdbGen struct {
	r      *rand.Rand
	b      strings.Builder
	serial int
	crlf   bool
	lower  float64 // chance of a lower-case record name
	cut    float64 // chance of a line cut before column 80
	pos    [3]float64
}

func (g *pdbGen) p(x float64) bool { return g.r.Float64() < x }

func (g *pdbGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *pdbGen) line(s string) {
	g.b.WriteString(s)
	if g.crlf {
		g.b.WriteString("\r")
	}
	g.b.WriteString("\n")
}

func (g *pdbGen) record(name string) string {
	if g.p(g.lower) {
		return strings.ToLower(name)
	}
	return name
}

// seqText writes a residue number in columns 23-26: "%4d", hybrid-36 past
// 9999, or (rarely) blank.
func seqText(n int, blank bool) string {
	switch {
	case blank:
		return "    "
	case n > 9999:
		const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		v := n - 10000 + 466560 // "A000" is 10000
		var s [4]byte
		for i := 3; i >= 0; i-- {
			s[i] = digits[v%36]
			v /= 36
		}
		return string(s[:])
	}
	return fmt.Sprintf("%4d", n)
}

// pdbAtom is one atom line's fields.
type pdbAtom struct {
	het               bool
	name, res, chain  string
	alt, icode        byte
	seq               string
	x, y, z, occ, b   float64
	seg, elem, charge string
}

// atom writes one ATOM/HETATM line, sometimes cut short or with odd
// columns, and sometimes an ANISOU record after it.
func (g *pdbGen) atom(a pdbAtom) {
	g.serial++
	rec := "ATOM  "
	if a.het {
		rec = "HETATM"
	}
	name := a.name
	if len(name) < 4 && len(a.elem) < 2 && !(len(name) > 0 && name[0] >= '0' && name[0] <= '9') {
		name = " " + name // one-letter elements start in column 14
	}
	serial := fmt.Sprintf("%5d", g.serial%100000)
	s := fmt.Sprintf("%s%s %-4s%c%-3s%2s%s%c   %8.3f%8.3f%8.3f%6.2f%6.2f      %-4s%2s%-2s",
		g.record(rec), serial, name, a.alt, a.res, a.chain, a.seq, a.icode, a.x, a.y, a.z, a.occ, a.b, a.seg, a.elem, a.charge)
	if g.p(g.cut) {
		s = s[:[]int{54, 55, 58, 60, 63, 66, 72, 76, 77, 78, 79}[g.r.IntN(11)]]
	} else if g.p(0.02) {
		s += strings.Repeat("x", 40+g.r.IntN(20)) // past gemmi's 120 columns
	}
	g.line(s)
	if g.p(0.03) {
		g.line(fmt.Sprintf("%s%s %-4s%c%-3s%2s%s%c %7d%7d%7d%7d%7d%7d", g.record("ANISOU"), serial, name, a.alt, a.res, a.chain,
			a.seq, a.icode, g.r.IntN(3)*100, 200, 300, 0, 0, 0))
		if g.p(0.1) {
			// gemmi reads the bare record's U11 from what earlier lines
			// left in its line buffer: a duplicate when that is not 0
			g.line("ANISOU")
		}
	}
}

// element returns the element columns for an atom name: usually the
// symbol, sometimes left-aligned, lower-case, or blank (then gemmi reads
// the name).
func (g *pdbGen) element(sym string) string {
	switch {
	case g.p(0.15):
		return ""
	case g.p(0.05):
		return strings.ToLower(sym)
	case len(sym) == 1 && g.p(0.05):
		return sym + " "
	case len(sym) == 1:
		return " " + sym
	}
	return sym
}

// residueAtoms returns atom names and element symbols of a residue.
func (g *pdbGen) residueAtoms(res string, nucleic bool) [][2]string {
	switch {
	case res == "ZN" || res == "CA" || res == "MG":
		return [][2]string{{res, res}}
	case nucleic:
		return [][2]string{{"P", "P"}, {"O5'", "O"}, {"C5'", "C"}, {"O3'", "O"}}[:1+g.r.IntN(4)]
	case len(res) == 3 && res != "NAG" && res != "SO4" && res != "HEM" && res != "GOL":
		names := [][2]string{{"N", "N"}, {"CA", "C"}, {"C", "C"}, {"O", "O"}, {"CB", "C"}}[:2+g.r.IntN(4)]
		if g.p(0.1) {
			names = append(names, [2]string{"HG12", "H"}) // four-character hydrogen name
		}
		if g.p(0.05) {
			names = append(names, [2]string{"1HB", "H"}) // old-style hydrogen name
		}
		return names
	}
	return [][2]string{{"C1", "C"}, {"O1", "O"}, {"C210", "C"}}[:1+g.r.IntN(3)]
}

func (g *pdbGen) step() {
	for k := range g.pos {
		g.pos[k] += 2.2 * (g.r.Float64()*2 - 1)
	}
}

// residue writes the atoms of one residue (with altlocs, sometimes).
func (g *pdbGen) residue(het bool, res, chain, seq string, icode byte, seg string, nucleic, alts bool) {
	g.step()
	for i, an := range g.residueAtoms(res, nucleic) {
		a := pdbAtom{het: het, name: an[0], res: res, chain: chain, alt: ' ', icode: icode, seq: seq,
			x: g.pos[0] + float64(i)*0.9, y: g.pos[1] - float64(i)*0.4, z: g.pos[2] + g.r.NormFloat64(),
			occ: 1, b: 20 + 80*g.r.Float64(), seg: seg, elem: g.element(an[1])}
		if g.p(0.03) {
			a.charge = g.pick([]string{"1+", "2-", "+1", "1"})
		}
		if alts && g.p(0.5) {
			a.alt, a.occ = 'A', 0.6
			g.atom(a)
			a.alt, a.occ, a.x = 'B', 0.4, a.x+0.3
		}
		g.atom(a)
	}
}

// GeneratePDB writes one random PDB-format file in the forms gemmi reads
// and other programs write: 1-3 chains (one- or two-character names, blank,
// parts of one chain interleaved with others), polymers of amino acids or
// nucleotides with altlocs, microheterogeneity, insertion codes (any case),
// negative and hybrid-36 numbers, segment ids, HETATM ligands, ions and
// standard residues, waters after TER or in their own chain, TER records
// present, missing or repeated, 1-3 models (MODEL/ENDMDL, or ENDMDL only
// as MD files write them), lines cut before column 80 or longer than 120,
// elements absent (read from the name), ANISOU, bare MODEL and ANISOU
// records (whose fields gemmi reads from earlier lines), header records, CRLF line
// ends, lower-case record names, a few malformed files gemmi refuses, and
// text after END.
func GeneratePDB(r *rand.Rand) []byte {
	g := &pdbGen{r: r, crlf: r.Float64() < 0.05}
	if g.p(0.1) {
		g.lower = 0.1
	}
	if g.p(0.3) {
		g.cut = 0.2
	}
	if g.p(0.5) {
		g.line("HEADER    DE NOVO PROTEIN                         01-JAN-24   XXXX              ")
		g.line("REMARK   2 RESOLUTION.    1.80 ANGSTROMS.                                       ")
		g.line("SEQRES   1 A    3  ALA GLY SER                                                  ")
	}
	nModels := []int{1, 1, 1, 2, 3}[r.IntN(5)]
	modelRecords := nModels > 1 && !g.p(0.2) || g.p(0.2)
	type chainPlan struct {
		name    string
		nucleic bool
		n, seq  int
	}
	var chains []chainPlan
	for ci := 0; ci < 1+r.IntN(3); ci++ {
		name := string(rune('A' + ci))
		switch {
		case g.p(0.05):
			name = ""
		case g.p(0.05):
			name = name + "X" // two-character chain id
		case ci > 0 && g.p(0.1):
			name = "A" // a later part of chain A
		}
		seq := r.IntN(20) - 5
		if g.p(0.03) {
			seq = 9995 // crosses into hybrid-36
		}
		chains = append(chains, chainPlan{name, g.p(0.15), []int{0, 1, 2, 3, 5, 8, 12}[r.IntN(7)], seq})
	}
	for m := 1; m <= nModels; m++ {
		switch {
		case modelRecords && g.p(0.01):
			g.line("MODEL") // gemmi's number: columns 11-14 left by earlier lines
		case modelRecords:
			g.line(fmt.Sprintf("%s    %4d", g.record("MODEL "), m))
		}
		g.pos = [3]float64{}
		var tail []func()
		for _, c := range chains {
			seg := ""
			if g.p(0.05) {
				seg = "S1"
			}
			seq := c.seq
			for i := 0; i < c.n; i++ {
				icode := byte(' ')
				if i > 0 && g.p(0.08) {
					icode = g.pick([]string{"A", "B", "a"})[0]
				} else {
					seq++
				}
				res := g.pick(pdbPolymer)
				if c.nucleic {
					res = g.pick(pdbNucleic)
				}
				rseg := seg
				if g.p(0.02) {
					rseg = "S2" // a segment change splits a residue in gemmi
				}
				g.residue(g.p(0.05), res, c.name, seqText(seq, false), icode, rseg, c.nucleic, g.p(0.1))
				if g.p(0.05) {
					// microheterogeneity: another residue at the same number
					g.residue(false, g.pick(pdbPolymer), c.name, seqText(seq, false), icode, rseg, false, false)
				}
				if g.p(0.02) {
					g.residue(true, g.pick(pdbLigands), c.name, seqText(seq+100, false), ' ', "", false, false)
				}
			}
			if c.n > 0 && !g.p(0.15) {
				g.line(g.record("TER") + []string{"", "   ", fmt.Sprintf("   %5d      %-3s %1s", g.serial+1, "GLY", c.name)}[r.IntN(3)])
				if g.p(0.05) {
					g.line("TER") // a second TER is ignored
				}
			}
			name := c.name
			ligs := func() {
				for l := r.IntN(3); l > 0; l-- {
					g.residue(true, g.pick(pdbLigands), name, seqText(500+l, false), ' ', "", false, false)
				}
				for w := r.IntN(4); w > 0; w-- {
					g.residue(true, g.pick(waterNames), name, seqText(900+w, false), ' ', "", false, false)
				}
			}
			if g.p(0.3) {
				tail = append(tail, ligs)
			} else {
				ligs()
			}
		}
		for _, f := range tail {
			f()
		}
		if g.p(0.01) {
			g.line("ATOM      1  CA  ALA A   1      11.104   6.134") // too short: an error
		}
		if g.p(0.01) {
			g.line("ANISOU") // not after an atom (when a model ends): maybe an error
		}
		if modelRecords || nModels > 1 {
			if !(g.p(0.01) && m < nModels) { // MODEL without ENDMDL: an error
				g.line(g.record("ENDMDL"))
			}
		}
	}
	if g.p(0.1) {
		g.line("CONECT    1    2                                                                ")
	}
	if g.p(0.7) {
		g.line(g.record("END"))
		if g.p(0.2) {
			g.line("ATOM      1  CA  ALA Z   1       0.000   0.000   0.000  1.00 20.00           C  ")
		}
	}
	return []byte(g.b.String())
}
