package cadv2

// Code below mirrors atomVocab and aminoAcids as switches: faster than map
// lookups on the per-atom path (TestLookups checks they agree).

// atomCode returns the vocabulary index of an atom name.
func atomCode(name string) (uint8, bool) {
	switch name {
	case "C":
		return 0, true
	case "CA":
		return 1, true
	case "CB":
		return 2, true
	case "CD":
		return 3, true
	case "CD1":
		return 4, true
	case "CD2":
		return 5, true
	case "CE":
		return 6, true
	case "CE1":
		return 7, true
	case "CE2":
		return 8, true
	case "CE3":
		return 9, true
	case "CG":
		return 10, true
	case "CG1":
		return 11, true
	case "CG2":
		return 12, true
	case "CH2":
		return 13, true
	case "CZ":
		return 14, true
	case "CZ2":
		return 15, true
	case "CZ3":
		return 16, true
	case "N":
		return 17, true
	case "ND1":
		return 18, true
	case "ND2":
		return 19, true
	case "NE":
		return 20, true
	case "NE1":
		return 21, true
	case "NE2":
		return 22, true
	case "NH1":
		return 23, true
	case "NH2":
		return 24, true
	case "NZ":
		return 25, true
	case "O":
		return 26, true
	case "OD1":
		return 27, true
	case "OD2":
		return 28, true
	case "OE1":
		return 29, true
	case "OE2":
		return 30, true
	case "OG":
		return 31, true
	case "OG1":
		return 32, true
	case "OH":
		return 33, true
	case "SD":
		return 34, true
	case "SG":
		return 35, true
	case "OXT":
		return 36, true
	}
	return 0, false
}

// residueCode returns the amino-acid index of a residue name, or unk.
func residueCode(name string) uint8 {
	switch name {
	case "ALA":
		return 0
	case "ARG":
		return 1
	case "ASN":
		return 2
	case "ASP":
		return 3
	case "CYS":
		return 4
	case "GLN":
		return 5
	case "GLU":
		return 6
	case "GLY":
		return 7
	case "HIS":
		return 8
	case "ILE":
		return 9
	case "LEU":
		return 10
	case "LYS":
		return 11
	case "MET":
		return 12
	case "PHE":
		return 13
	case "PRO":
		return 14
	case "SER":
		return 15
	case "THR":
		return 16
	case "TRP":
		return 17
	case "TYR":
		return 18
	case "VAL":
		return 19
	}
	return unk
}
