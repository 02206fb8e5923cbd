package mmcif

// resKind mirrors gemmi 0.5.7's ResidueInfo::Kind for tabulated residues.
type resKind uint8

const (
	kindUNKNOWN resKind = iota
	kindAA              // L-amino acid
	kindAAD             // D-amino acid
	kindPAA             // proline-like
	kindMAA             // methylated
	kindRNA
	kindDNA
	kindBUF // buffer / ion
	kindHOH
	kindPYR
	kindKET
	kindELS
)

type resInfo struct {
	code     byte // one-letter code as gemmi stores it; ' ' when none
	kind     resKind
	standard bool
}

// OneLetter returns the one-letter code of residue name as the reference
// sequences use it: gemmi's tabulated one_letter_code upper-cased (so MSE
// gives 'M'), or 'X' for an untabulated residue or one without a code.
func OneLetter(name string) byte {
	ri, ok := resTable[name]
	if !ok || ri.code == ' ' {
		return 'X'
	}
	c := ri.code
	if 'a' <= c && c <= 'z' {
		c -= 'a' - 'A'
	}
	return c
}
