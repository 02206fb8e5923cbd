package bio2token

// The tables below transcribe ../shared/formats/bio2token-atom-conventions.json
// (checked against that file by TestConventionsMatchJSON) and the document
// vocabulary of bio2token-v2.

// aminoAcids maps the kept 3-letter amino-acid names to their one-letter code.
var aminoAcids = map[string]byte{
	"ALA": 'A', "ASX": 'B', "CYS": 'C', "ASP": 'D', "GLU": 'E', "PHE": 'F',
	"GLY": 'G', "HIS": 'H', "ILE": 'I', "LYS": 'K', "LEU": 'L', "MET": 'M',
	"ASN": 'N', "PRO": 'P', "GLN": 'Q', "ARG": 'R', "SER": 'S', "THR": 'T',
	"SEC": 'U', "VAL": 'V', "TRP": 'W', "XAA": 'X', "TYR": 'Y', "GLX": 'Z',
}

// rnaNames are the kept 1-letter RNA residue names.
var rnaNames = map[string]byte{"A": 'A', "G": 'G', "C": 'C', "U": 'U', "T": 'T'}

var backboneAA = []string{"N", "CA", "C", "O"}

var backboneRNA = []string{"P", "OP1", "OP2", "O5'", "C5'", "C4'", "O4'", "C3'", "O3'", "C2'", "O2'", "C1'"}

var sidechainAA = map[string][]string{
	"ALA": {"CB"},
	"ARG": {"CB", "CG", "CD", "NE", "CZ", "NH1", "NH2"},
	"ASN": {"CB", "CG", "OD1", "ND2"},
	"ASP": {"CB", "CG", "OD1", "OD2"},
	"CYS": {"CB", "SG"},
	"GLN": {"CB", "CG", "CD", "OE1", "NE2"},
	"GLU": {"CB", "CG", "CD", "OE1", "OE2"},
	"GLY": {},
	"HIS": {"CB", "CG", "ND1", "CE1", "NE2", "CD2"},
	"ILE": {"CB", "CG1", "CG2", "CD1"},
	"LEU": {"CB", "CG", "CD1", "CD2"},
	"LYS": {"CB", "CG", "CD", "CE", "NZ"},
	"MET": {"CB", "CG", "SD", "CE"},
	"PHE": {"CB", "CG", "CD1", "CE1", "CZ", "CE2", "CD2"},
	"PRO": {"CB", "CG", "CD"},
	"SEC": {"CB", "SE"},
	"SER": {"CB", "OG"},
	"THR": {"CB", "OG1", "CG2"},
	"TRP": {"CB", "CG", "CD1", "NE1", "CE2", "CZ2", "CH2", "CZ3", "CE3", "CD2"},
	"TYR": {"CB", "CG", "CD1", "CE1", "CZ", "OH", "CE2", "CD2"},
	"VAL": {"CB", "CG1", "CG2"},
	"XAA": {},
}

var sidechainRNA = map[string][]string{
	"A": {"N9", "C8", "N7", "C5", "C6", "N6", "N1", "C2", "N3", "C4"},
	"G": {"N9", "C8", "N7", "C5", "C6", "O6", "N1", "C2", "N2", "N3", "C4"},
	"C": {"N1", "C2", "O2", "C6", "C5", "N4", "N3", "C4"},
	"U": {"N1", "C2", "O2", "C6", "C5", "N3", "C4", "O4"},
	"T": {"N1", "C2", "O2", "C6", "C5", "C7", "O4", "N3", "C4"},
}

// atom37 is the 37-name atom vocabulary of the document; other atom names
// are written as <UNK>.
var atom37 = map[string]bool{
	"N": true, "CA": true, "C": true, "CB": true, "O": true, "CG": true, "CG1": true,
	"CG2": true, "OG": true, "OG1": true, "SG": true, "CD": true, "CD1": true, "CD2": true,
	"ND1": true, "ND2": true, "OD1": true, "OD2": true, "SD": true, "CE": true, "CE1": true,
	"CE2": true, "CE3": true, "NE": true, "NE1": true, "NE2": true, "OE1": true, "OE2": true,
	"CH2": true, "NH1": true, "NH2": true, "OH": true, "CZ": true, "CZ2": true, "CZ3": true,
	"NZ": true, "OXT": true,
}

// residue20 are the residue names written as themselves in the sequence
// section; every other kept residue (ASX, SEC, XAA, GLX, RNA) is <UNK>.
var residue20 = map[string]bool{
	"ALA": true, "ARG": true, "ASN": true, "ASP": true, "CYS": true, "GLN": true, "GLU": true,
	"GLY": true, "HIS": true, "ILE": true, "LEU": true, "LYS": true, "MET": true, "PHE": true,
	"PRO": true, "SER": true, "THR": true, "TRP": true, "TYR": true, "VAL": true,
}

// canonical maps each kept residue name to its atom order: backbone then
// side chain. A name absent from it is skipped.
var canonical = buildCanonical()

func buildCanonical() map[string][]string {
	m := make(map[string][]string)
	for name := range aminoAcids {
		m[name] = append(append([]string(nil), backboneAA...), sidechainAA[name]...) // ASX, GLX: backbone only
	}
	for name, sc := range sidechainRNA {
		m[name] = append(append([]string(nil), backboneRNA...), sc...)
	}
	return m
}

// oneLetter returns the one-letter code of a kept residue.
func oneLetter(name string) byte {
	if c, ok := aminoAcids[name]; ok {
		return c
	}
	return rnaNames[name]
}

// VocabularySize is the number of distinct tokens a bio2token-v2 document can
// use: 4 specials, 2,701 positions, 20 residues, 37 atoms, <UNK> and 4,096 codes.
const VocabularySize = 4 + MaxResidues + 20 + 37 + 1 + NumCodes
