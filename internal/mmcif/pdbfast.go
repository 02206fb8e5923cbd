package mmcif

import (
	"bytes"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// The PDB reader's fast path, for the lines most files consist of: an
// ATOM or HETATM line of at least 80 columns (pdb.go's atom reads any
// other). It reads the same fields as the general code, in fixed columns,
// with three shortcuts that never change a value:
//   - coordinates, occupancy and B written as printf's %8.3f and %6.2f
//     are read as an integer over a power of ten (fixedDecimal; anything
//     else goes to double, as in the general code);
//   - the atom name and element, which depend only on columns 13-16 and
//     77-78 of such a line, come from a cache keyed by those six bytes;
//   - gemmi's line buffer, which only MODEL, ANISOU and mmJSON detection
//     read, and only past a short line's end, is filled when one of them
//     needs it (lineBuf), not at every line.
//
// readWith(data, true) reads every line with the general code; the tests
// check that both read the same (checkFastMatchesGeneral: generated files
// and edited copies in TestPDBFastPathMatchesGeneral, the gemmi
// differential in TestGemmiDifferentialPDB).

// atomFast is atom for a line of more than 80 bytes (columns 1-80 and at
// least a newline or one more byte).
func (p *pdbReader) atomFast(l pdbLine) error {
	if p.keyOK && p.curPart >= 0 && p.curRes >= 0 && p.keySegLen == 4 &&
		[10]byte(l[17:27]) == p.keyRes && [4]byte(l[72:76]) == p.keySeg {
		return p.addAtomFast(l)
	}
	if err := p.residue(l); err != nil {
		return err
	}
	p.keyRes = [10]byte(l[17:27])
	p.keySeg = [4]byte(l[72:76])
	p.keySegLen = 4
	p.keyOK = true
	return p.addAtomFast(l)
}

// addAtomFast is addAtom for a line of more than 80 bytes.
func (p *pdbReader) addAtomFast(l pdbLine) error {
	ne := p.nameElement(l)
	x, ok := fixedDecimal(l[30:38], 3)
	if !ok {
		x = l.double(30, 8)
	}
	y, ok := fixedDecimal(l[38:46], 3)
	if !ok {
		y = l.double(38, 8)
	}
	z, ok := fixedDecimal(l[46:54], 3)
	if !ok {
		z = l.double(46, 8)
	}
	occ, ok := fixedDecimal(l[54:60], 2)
	if !ok {
		occ = l.double(54, 6)
	}
	b, ok := fixedDecimal(l[60:66], 2)
	if !ok {
		b = l.double(60, 6)
	}
	if c0, c1 := l[78], l[79]; (c0 != ' ' || c1 != ' ') && !readCharge(c0, c1) {
		return errCharge(c0, c1)
	}
	a := structure.Atom{Name: ne.name, Element: ne.elem, X: x, Y: y, Z: z, Occ: float32(occ), B: float32(b)}
	if c := l[16]; c != ' ' {
		a.AltLoc = c
	}
	p.atoms = append(p.atoms, a)
	p.atomRes = append(p.atomRes, int32(p.curRes))
	p.res[p.curRes].nAtoms++
	p.anisoSet = false
	return nil
}

type nameElem struct{ name, elem string }

type nameElemEntry struct {
	key uint64
	nameElem
	ok bool
}

// nameElement is the atom name and element of a line of more than 80
// bytes (atomName, atomElement), cached by columns 13-16 and 77-78.
func (p *pdbReader) nameElement(l pdbLine) nameElem {
	k := uint64(l[12])<<40 | uint64(l[13])<<32 | uint64(l[14])<<24 | uint64(l[15])<<16 | uint64(l[76])<<8 | uint64(l[77])
	h := (k * 0x9e3779b97f4a7c15) >> (64 - 8)
	if c := &p.neCache[h]; c.ok && c.key == k {
		return c.nameElem
	}
	ne, ok := p.nameElems[k]
	if !ok {
		ne = nameElem{p.atomName(l), atomElement(l)}
		p.nameElems[k] = ne
	}
	p.neCache[h] = nameElemEntry{k, ne, true}
	return ne
}

// fixedDecimal reads a field written as printf's %W.Ff with F = frac:
// blanks, an optional '-', at least one digit, '.', then exactly frac
// digits to the field's end. ok is false for any other text. The value is
// the digits as an integer m (at most 15 digits: exact in a float64) over
// 10^frac (exact): one IEEE division, so correctly rounded, the value
// double and strconv.ParseFloat give for the same text (-0 for "-0.000").
// (A branch-free SWAR version of it measured slower on AFDB files.)
func fixedDecimal(s []byte, frac int) (v float64, ok bool) {
	dot := len(s) - frac - 1
	if dot < 1 || len(s) > 16 || s[dot] != '.' {
		return 0, false
	}
	var m uint64
	for _, c := range s[dot+1:] {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		m = m*10 + uint64(d)
	}
	// the integer part, right to left: at least one digit, then an
	// optional '-', then blanks
	k := dot - 1
	mul := pow10u[frac]
	d := s[k] - '0'
	if d > 9 {
		return 0, false
	}
	m += uint64(d) * mul
	for k--; k >= 0; k-- {
		d := s[k] - '0'
		if d > 9 {
			break
		}
		mul *= 10
		m += uint64(d) * mul
	}
	neg := k >= 0 && s[k] == '-'
	if neg {
		k--
	}
	for ; k >= 0; k-- {
		if s[k] != ' ' {
			return 0, false
		}
	}
	v = float64(m) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

var pow10u = [...]uint64{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000, 100000000000000}

// lineBuf returns gemmi's line buffer as it is at the current line l
// (which ends at next, the offset of the following line) for a record
// that reads columns [0, need): l itself when it is that long, else the
// buffer, first filled with the lines since it was last filled (in the
// general mode it is always full).
func (p *pdbReader) lineBuf(data []byte, l pdbLine, next, need int) pdbLine {
	if p.noFast {
		return pdbLine(p.buf[:])
	}
	if len(l) >= need {
		return l
	}
	for pos := p.bufAt; pos < next; {
		end := len(data)
		if k := bytes.IndexByte(data[pos:], '\n'); k >= 0 {
			end = pos + k + 1
		}
		p.buf[copy(p.buf[:120], data[pos:min(end, pos+120)])] = 0
		pos = end
	}
	p.bufAt = next
	return pdbLine(p.buf[:])
}
