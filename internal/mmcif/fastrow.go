package mmcif

import (
	"encoding/binary"
	"math"
	"slices"
)

// maxFastCols bounds the _atom_site column count the fast path handles.
const maxFastCols = 64

// fastState is what the _atom_site line fast path keeps between rows.
type fastState struct {
	ok       bool               // the loop's columns allow the fast path
	s, e     [maxFastCols]int32 // the current line's token spans by file column
	keyCols  [5]int             // file columns of the residue key (model, chain, comp, seq, icode)
	nKey     int
	key      [5]uint64 // the previous fast row's packed key values
	keyValid bool      // key holds the previous row's key (that row went the fast way)
	// file columns of the atom's own fields
	name, elem, alt, x, y, z, occ, bf int
	num                               [maxFastCols]int8 // slot in val of each numeric file column, -1 for others
	val                               [5]float64        // the current line's occupancy, B, x, y, z
	// interned names and elements by packed token (fastrow.go) and by
	// template column region (template.go)
	tokNames, tokElems, regNames, regElems nameCache

	tpl template // the row template (template.go)

	// the last atom's name, element and altloc (for template rows)
	lastName, lastElem string
	lastAlt            byte
}

// startFast prepares the fast path for a new _atom_site loop (after
// startAtoms has mapped the columns).
func (b *builder) startFast() {
	f := &b.fast
	f.keyValid = false
	f.ok = b.ok && len(b.colOf) <= maxFastCols && !b.noFast
	if !f.ok {
		return
	}
	pick := func(c, alt int) int {
		if b.cols[c] >= 0 {
			return b.cols[c]
		}
		if alt >= 0 {
			return b.cols[alt]
		}
		return -1
	}
	f.nKey = 0
	for _, c := range [...]int{pick(cModelNum, -1), pick(cAuthAsymID, cLabelAsymID), pick(cAuthCompID, cLabelCompID),
		pick(cAuthSeqID, -1), pick(cInsCode, -1)} {
		if c >= 0 {
			f.keyCols[f.nKey] = c
			f.nKey++
		}
	}
	f.name = pick(cAuthAtomID, cLabelAtomID)
	f.elem, f.alt = b.cols[cTypeSymbol], b.cols[cLabelAltID]
	f.x, f.y, f.z = b.cols[cX], b.cols[cY], b.cols[cZ]
	f.occ, f.bf = b.cols[cOcc], b.cols[cBiso]
	for i := range f.num {
		f.num[i] = -1
	}
	for k, c := range [...]int{f.occ, f.bf, f.x, f.y, f.z} {
		f.num[c] = int8(k)
	}
	f.tpl.reset()
}

var lenMask = [9]uint64{0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffff, 0xffffffffffff, 0xffffffffffffff, 0xffffffffffffffff}

// pack returns the bytes of a token of at most 8 bytes as one word (tokens
// never hold a zero byte, so the word determines the token), or ok ==
// false for a longer token or one too close to the end of data.
func pack(data []byte, s, e int32) (uint64, bool) {
	l := e - s
	if l > 8 || int(s)+8 > len(data) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(data[s:]) & lenMask[l], true
}

// isNull reports an unquoted '.' or '?'.
func isNull(data []byte, s, e int32) bool {
	return e-s == 1 && (data[s] == '.' || data[s] == '?')
}

// fastAtomRow reads the _atom_site row that starts at data[p] (the first
// byte of a token) when the whole row is one line of ncol plain tokens:
// unquoted, printable ASCII, none starting with a quote, '#', '_' or ';',
// none a reserved word, separated by spaces, the line ending in '\n' (or
// the end of the input). Such a line tokenizes the same in the general
// lexer, so the row is added to b exactly as atomRow would add it and the
// position of the line's end is returned with rows == 1. When the line
// follows the row template's line, it and the lines after it that match
// the template are read (template.go); rows is then their count and end the
// last one's end. Any other line returns rows == 0 having changed nothing
// that the general path does not rewrite.
func (b *builder) fastAtomRow(data []byte, p, ncol int) (end, rows int) {
	f := &b.fast
	if !f.ok || ncol > maxFastCols {
		return p, 0
	}
	if f.tpl.prevLine == p-f.tpl.length && f.tpl.length > 0 {
		// the template's rows, one line after the other
		for {
			e, ok := b.templateRow(data, p)
			if !ok {
				break
			}
			end, rows, p = e, rows+1, e+1
		}
		if rows > 0 {
			return end, rows
		}
	}
	n := len(data)
	q := p
	col := 0
	for {
		s := q
		c := data[q]
		if !plain[c] || col == ncol { // odd token, or more than one row on the line
			return p, 0
		}
		if k := f.num[col]; k >= 0 {
			q = f.scanNumber(data, q, k)
		} else {
			q++
			for q < n && data[q]-'!' < '~'-'!'+1 {
				q++
			}
		}
		if q-s >= 5 && maybeKeyword(data[s:q]) {
			return p, 0
		}
		f.s[col], f.e[col] = int32(s), int32(q)
		col++
		// separator: spaces, then the next token or the line's end (a
		// token that ended on a tab, CR, control or non-ASCII byte fails
		// the plain test above on the next round)
		for q < n && data[q] == ' ' {
			q++
		}
		if q == n || data[q] == '\n' {
			break
		}
	}
	if col != ncol {
		return p, 0
	}
	b.fastAdd(data)
	f.tpl.set(data, p, q, f.s[:ncol], &f.keyCols, f.nKey)
	return q, 1
}

// fastAdd adds the atom of the tokenized line in b.fast, as atomRow does,
// to the residue keyedResidue finds.
func (b *builder) fastAdd(data []byte) {
	f := &b.fast
	ri := b.keyedResidue(data)
	var alt byte
	if s, e := f.s[f.alt], f.e[f.alt]; !isNull(data, s, e) {
		alt = data[s]
	}
	f.lastName = b.cachedName(data, f.s[f.name], f.e[f.name], &f.tokNames, false)
	f.lastElem = b.cachedName(data, f.s[f.elem], f.e[f.elem], &f.tokElems, true)
	f.lastAlt = alt
	b.addAtom(ri)
}

// keyedResidue returns the residue of the row whose spans are in b.fast:
// the previous row's when the residue key (model, chain, comp, seq,
// insertion code) is byte for byte the previous row's (every test in
// residue() would pass unchanged), else residue()'s.
func (b *builder) keyedResidue(data []byte) int {
	f := &b.fast
	same, valid := f.keyValid, true
	for i := 0; i < f.nKey; i++ {
		c := f.keyCols[i]
		v, ok := pack(data, f.s[c], f.e[c])
		valid = valid && ok
		same = same && ok && v == f.key[i]
		f.key[i] = v
	}
	f.keyValid = valid
	if same && b.curRes >= 0 {
		return b.curRes
	}
	for c, fi := range b.colOf {
		if fi >= 0 {
			b.fields[fi] = val{f.s[c], f.e[c], false}
		}
	}
	return b.residue()
}

// addAtom appends the atom whose name, element and altloc are f.last* and
// whose numbers are in f.val to residue ri.
func (b *builder) addAtom(ri int) {
	f := &b.fast
	// every field stored into the slice's element: an appended literal
	// is built on the stack, and its 16-byte copy stalls on the stores
	// just made
	n := len(b.atoms)
	b.atoms = slices.Grow(b.atoms, 1)[:n+1]
	a := &b.atoms[n]
	a.Name, a.Element, a.AltLoc = f.lastName, f.lastElem, f.lastAlt
	a.Occ, a.B = float32(f.val[0]), float32(f.val[1])
	a.X, a.Y, a.Z = f.val[2], f.val[3], f.val[4]
	b.atomRes = append(b.atomRes, int32(ri))
	b.res[ri].nAtoms++
}

// nameCache maps a packed key (a token, or a template column's region) to
// the interned name it reads as; direct mapped.
type nameCache struct {
	key [256]uint64
	val [256]string
}

// cachedName is b.in of the token data[s:e] (b.inUpper when upper: the
// type_symbol column), "" for a null, through c keyed by the packed token.
func (b *builder) cachedName(data []byte, s, e int32, c *nameCache, upper bool) string {
	if isNull(data, s, e) {
		return ""
	}
	v, ok := pack(data, s, e)
	if !ok {
		return b.internName(data[s:e], upper)
	}
	h := (v * 0x9E3779B97F4A7C15) >> 56
	if c.key[h] == v {
		return c.val[h]
	}
	str := b.internName(data[s:e], upper)
	c.key[h], c.val[h] = v, str
	return str
}

// internName is b.in, or b.inUpper when upper.
func (b *builder) internName(t []byte, upper bool) string {
	if upper {
		return b.inUpper(t)
	}
	return b.in(t)
}

// scanNumber scans the token at data[q] (a numeric column's) to its end,
// which it returns, and sets f.val[k] to parseFloat of the token: a plain
// decimal is converted as it is scanned (exactly as parseFloat's fast path
// does), anything else by parseFloat once the token's end is found.
func (f *fastState) scanNumber(data []byte, q int, k int8) int {
	n := len(data)
	s, i := q, q
	neg := false
	if c := data[i]; c == '-' || c == '+' {
		neg = c == '-'
		i++
	}
	var mant uint64
	st := i
	for i < n && data[i]-'0' < 10 {
		mant = mant*10 + uint64(data[i]-'0')
		i++
	}
	digits, frac := i-st, 0
	if i < n && data[i] == '.' {
		i++
		fs := i
		for i < n && data[i]-'0' < 10 {
			mant = mant*10 + uint64(data[i]-'0')
			i++
		}
		frac = i - fs
		digits += frac
	}
	if (i == n || data[i]-'!' >= '~'-'!'+1) && digits > 0 && digits <= 19 && mant <= 1<<53 && frac <= 22 {
		v := float64(mant)
		if frac > 0 {
			v /= pow10[frac]
		}
		if neg {
			v = -v
		}
		f.val[k] = v
		return i
	}
	for i < n && data[i]-'!' < '~'-'!'+1 {
		i++
	}
	f.val[k] = parseFloat(data[s:i])
	if i-s == 1 && (data[s] == '?' || data[s] == '.') {
		f.val[k] = nullNumber[k] // plain tokens here: never quoted
	}
	return i
}

// nullNumber is what gemmi 0.5.7 reads for an unquoted '?' or '.' in the
// occupancy, B_iso_or_equiv and Cartn_x/y/z columns (f.val's order):
// cif::as_number(value, 1.0) for the occupancy, (value, 50.0) for B, NaN
// for coordinates.
var nullNumber = [5]float64{1, 50, math.NaN(), math.NaN(), math.NaN()}
