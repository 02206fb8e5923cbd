package mmcif

import (
	"math"
	"strconv"
)

// Fixed-column field readers of the PDB format, each as gemmi 0.5.7's
// pdb_impl helper of the same purpose reads a field (pdb.hpp, atox.hpp,
// atof.hpp, elem.hpp). A pdbLine is one line as gemmi's line buffer holds
// it: at most 120 bytes, the newline included; a byte at or beyond its
// length reads as NUL, as the buffer's terminator does.

type pdbLine []byte

// at returns byte i of the line, 0 beyond its end.
func (l pdbLine) at(i int) byte {
	if i < len(l) {
		return l[i]
	}
	return 0
}

// field returns bytes [i, i+n) of the line, cut at its end.
func (l pdbLine) field(i, n int) []byte {
	if i >= len(l) {
		return nil
	}
	return l[i:min(i+n, len(l))]
}

// isSpaceC is gemmi's is_space: C's isspace (9-13 and 32).
func isSpaceC(c byte) bool { return c == ' ' || c-9 < 5 }

// alpha4 is gemmi's ialpha4_id of the line's first four bytes: the
// case-insensitive record name that is_record_type compares.
func (l pdbLine) alpha4() uint32 {
	return (uint32(l.at(0))<<24 | uint32(l.at(1))<<16 | uint32(l.at(2))<<8 | uint32(l.at(3))) &^ 0x20202020
}

// rec is ialpha4_id of a record name (NUL-padded to four bytes).
func rec(name string) uint32 {
	var b [4]byte
	copy(b[:], name)
	return (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) &^ 0x20202020
}

// alpha3 is gemmi's ialpha3_id of the line's bytes i, i+1, i+2.
func (l pdbLine) alpha3(i int) uint32 {
	return (uint32(l.at(i))<<16 | uint32(l.at(i+1))<<8 | uint32(l.at(i+2))) &^ 0x202020
}

// alpha3 is ialpha3_id of a three-letter string.
func alpha3(s string) uint32 { return pdbLine(s).alpha3(0) }

// isRecord3 is gemmi's is_record_type3: the first three letters match and
// the fourth is blank, a control character or the end ("TER\n", "END ").
func (l pdbLine) isRecord3(id uint32) bool { return l.alpha4()&^0xf == id }

// readString is gemmi's read_string: the field with blanks trimmed on both
// sides, cut at the first newline, carriage return or NUL.
func (l pdbLine) readString(i, n int) []byte {
	s := l.field(i, n)
	for len(s) > 0 && isSpaceC(s[0]) {
		s = s[1:]
	}
	for k, c := range s {
		if c == '\n' || c == '\r' || c == 0 {
			s = s[:k]
			break
		}
	}
	for len(s) > 0 && isSpaceC(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// readInt is gemmi's string_to_int(p, false, n): leading blanks, an
// optional sign, then digits; anything else ends the number (0 without
// digits), never an error.
func (l pdbLine) readInt(i, n int) int {
	s := l.field(i, n)
	k := 0
	for k < len(s) && isSpaceC(s[k]) {
		k++
	}
	neg := false
	if k < len(s) && (s[k] == '-' || s[k] == '+') {
		neg = s[k] == '-'
		k++
	}
	v := 0
	for ; k < len(s) && s[k]-'0' < 10; k++ {
		v = v*10 + int(s[k]-'0')
		if v > math.MaxInt32 {
			v = math.MaxInt32 // gemmi's int would overflow; stay finite
		}
	}
	if neg {
		return -v
	}
	return v
}

// readBase36 is strtol(field, 36) of gemmi's read_base36: leading blanks,
// a sign, then base-36 digits.
func readBase36(s []byte) int {
	k := 0
	for k < len(s) && isSpaceC(s[k]) {
		k++
	}
	neg := false
	if k < len(s) && (s[k] == '-' || s[k] == '+') {
		neg = s[k] == '-'
		k++
	}
	v := 0
	for ; k < len(s); k++ {
		c := s[k] | 0x20
		var d int
		switch {
		case s[k]-'0' < 10:
			d = int(s[k] - '0')
		case c >= 'a' && c <= 'z':
			d = int(c-'a') + 10
		default:
			return sign(neg, v)
		}
		v = v*36 + d
	}
	return sign(neg, v)
}

func sign(neg bool, v int) int {
	if neg {
		return -v
	}
	return v
}

// readSeqID is gemmi's read_seq_id on columns 23-27 (at i = 22): the
// residue number (hybrid-36 above 9999), or none when the four columns are
// blank, and the insertion code (0 for blank, as the mmCIF reader keeps
// it; gemmi keeps the code unless it is a newline or carriage return).
func (l pdbLine) readSeqID(i int) (num int, has bool, icode byte) {
	if c := l.at(i + 4); c != '\r' && c != '\n' && c != ' ' {
		icode = c
	}
	if l.at(i) < 'A' {
		for k := 0; k < 4; k++ {
			if !isSpaceC(l.at(i + k)) {
				return l.readInt(i+k, 4-k), true, icode
			}
		}
		return 0, false, icode
	}
	return readBase36(l.field(i, 4)) - 466560 + 10000, true, icode
}

// readDouble is gemmi's read_double: fast_from_chars over the field after
// leading blanks and one '+': the longest prefix that is a number (fast
// float's general format, inf and nan included), correctly rounded; 0 when
// there is none. Errors are not checked, as in gemmi.
func (l pdbLine) readDouble(i, n int) float64 {
	s := l.field(i, n)
	for len(s) > 0 && isSpaceC(s[0]) {
		s = s[1:]
	}
	if len(s) > 0 && s[0] == '+' {
		s = s[1:]
	}
	return prefixFloat(s)
}

// double is readDouble with a fast path for the usual form of a
// coordinate, occupancy or B field: blanks, an optional '-', digits, '.',
// digits, up to the field's end, at most 15 digits (exact in a float64, so
// that one division rounds correctly, as Clinger's fast path does).
func (l pdbLine) double(i, n int) float64 {
	if i+n > len(l) {
		return l.readDouble(i, n)
	}
	s := l[i : i+n]
	k := 0
	for k < len(s) && s[k] == ' ' {
		k++
	}
	neg := k < len(s) && s[k] == '-'
	if neg {
		k++
	}
	var m uint64
	nd := 0
	for k < len(s) && s[k]-'0' < 10 {
		m = m*10 + uint64(s[k]-'0')
		k++
		nd++
	}
	frac := 0
	if k < len(s) && s[k] == '.' {
		k++
		for k < len(s) && s[k]-'0' < 10 {
			m = m*10 + uint64(s[k]-'0')
			k++
			frac++
		}
	}
	if k != len(s) || nd+frac == 0 || nd+frac > 15 {
		return l.readDouble(i, n)
	}
	v := float64(m)
	if frac > 0 {
		v /= pow10[frac]
	}
	if neg {
		v = -v
	}
	return v
}

// prefixFloat is fast_float::from_chars on s: the number at its start.
func prefixFloat(s []byte) float64 {
	k := 0
	if k < len(s) && s[k] == '-' {
		k++
	}
	start := k
	for k < len(s) && s[k]-'0' < 10 {
		k++
	}
	digits := k - start
	if k < len(s) && s[k] == '.' {
		k++
		f := k
		for k < len(s) && s[k]-'0' < 10 {
			k++
		}
		digits += k - f
	}
	if digits == 0 {
		return infNaN(s)
	}
	end := k
	if k < len(s) && s[k]|0x20 == 'e' {
		k++
		if k < len(s) && (s[k] == '-' || s[k] == '+') {
			k++
		}
		if k < len(s) && s[k]-'0' < 10 {
			for k < len(s) && s[k]-'0' < 10 {
				k++
			}
			// an exponent: the general path (ParseFloat rounds
			// correctly, and overflows to an infinity as fast_float does)
			f, _ := strconv.ParseFloat(string(s[:k]), 64)
			return f
		}
	}
	return parseFloat(s[:end])
}

// infNaN reads fast_float's "inf", "infinity" and "nan" (any case, after an
// optional '-'); anything else is not a number and reads as 0.
func infNaN(s []byte) float64 {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	switch {
	case hasPrefixFold(s, "nan"):
		return math.NaN()
	case hasPrefixFold(s, "inf"):
		if neg {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	return 0
}

// readCharge is gemmi's read_charge on columns 79-80: "2+" or "+2" are
// read without an error; a digit with anything but a sign or blank is
// gemmi's "Wrong format for charge" error (ok false).
func readCharge(digit, sgn byte) bool {
	if sgn == ' ' && digit == ' ' {
		return true
	}
	if sgn-'0' < 10 {
		digit, sgn = sgn, digit
	}
	if digit-'0' < 10 {
		return sgn == '+' || sgn == '-' || sgn == 0 || isSpaceC(sgn)
	}
	return true
}

// elementNames are gemmi's element_uppercase_name, by El number (X, H, HE,
// ..., OG, then D).
var elementNames = [...]string{
	"X", "H", "HE", "LI", "BE", "B", "C", "N", "O", "F", "NE",
	"NA", "MG", "AL", "SI", "P", "S", "CL", "AR",
	"K", "CA", "SC", "TI", "V", "CR", "MN", "FE", "CO",
	"NI", "CU", "ZN", "GA", "GE", "AS", "SE", "BR", "KR",
	"RB", "SR", "Y", "ZR", "NB", "MO", "TC", "RU", "RH",
	"PD", "AG", "CD", "IN", "SN", "SB", "TE", "I", "XE",
	"CS", "BA", "LA", "CE", "PR", "ND", "PM", "SM", "EU",
	"GD", "TB", "DY", "HO", "ER", "TM", "YB", "LU",
	"HF", "TA", "W", "RE", "OS", "IR", "PT", "AU", "HG",
	"TL", "PB", "BI", "PO", "AT", "RN",
	"FR", "RA", "AC", "TH", "PA", "U", "NP", "PU", "AM",
	"CM", "BK", "CF", "ES", "FM", "MD", "NO", "LR",
	"RF", "DB", "SG", "BH", "HS", "MT", "DS", "RG", "CN",
	"NH", "FL", "MC", "LV", "TS", "OG",
	"D",
}

// elementIndex maps two upper-case bytes to an element name (gemmi's
// find_element table search).
var elementIndex = func() map[[2]byte]string {
	m := make(map[[2]byte]string, len(elementNames))
	for _, n := range elementNames {
		var k [2]byte
		copy(k[:], n)
		m[k] = n
	}
	return m
}()

// singleLetter is gemmi's find_single_letter_element.
func singleLetter(c byte) string {
	switch c {
	case 'H', 'B', 'C', 'N', 'O', 'F', 'P', 'S', 'K', 'V', 'Y', 'I', 'W', 'U', 'D':
		return singleNames[c-'A' : c-'A'+1]
	}
	return "X"
}

// singleNames holds every upper-case letter, for singleLetter's names.
const singleNames = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// findElement is gemmi's find_element on two bytes: the first upper-cased
// (a blank becomes NUL), a NUL first byte means the single letter that
// follows, a second byte below 14 (blank, control) a single letter.
func findElement(c0, c1 byte) string {
	first, second := c0&^0x20, c1&^0x20
	if first == 0 {
		return singleLetter(second)
	}
	if second < 14 {
		return singleLetter(first)
	}
	if n, ok := elementIndex[[2]byte{first, second}]; ok {
		return n
	}
	return "X"
}

// atomElement is how gemmi 0.5.7's PDB reader finds an atom's element:
// columns 77-78 when either holds a letter (C isalpha), else from the atom
// name (columns 13-16): H for a four-character name starting with H; the
// second character for names such as "1HB "; the first for "C210"; else
// the name's first two columns as a symbol.
func atomElement(l pdbLine) string {
	isAlpha := func(c byte) bool { return (c|0x20)-'a' < 26 }
	switch {
	case len(l) > 76 && (isAlpha(l.at(76)) || isAlpha(l.at(77))):
		return findElement(l.at(76), l.at(77))
	case l.at(12)&^0x20 == 'H' && l.at(15) != ' ':
		return "H"
	case l.at(12)-'0' < 10:
		return singleLetter(l.at(13))
	case l.at(13)-'0' < 10:
		return singleLetter(l.at(12))
	}
	return findElement(l.at(12), l.at(13))
}
