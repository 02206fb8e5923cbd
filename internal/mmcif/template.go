package mmcif

import (
	"encoding/binary"
	"math/bits"
)

// The row template. In column-aligned files (AFDB, and PDB entries as the
// wwPDB writes them) every _atom_site line has the same length and its
// tokens at the same offsets, and a line differs from the one before it in
// a few words only (the serial number, the atom's name and element, the
// coordinates). After a line has been read, the next one, when it has the
// same length and directly follows it, is classified 64 bytes at a time
// (lineMasks: space or not, printable or not, changed from the line before
// or not) and only the tokens whose bytes changed are read again (the
// coordinates always); every other value is the previous row's.
//
// The next line is a row of the same columns exactly when its token starts
// (a non-space byte at the line's start or after a space) are the
// template's, it ends in '\n', and every byte of its content is a space or
// printable ASCII. Its tokens then read as fastAtomRow reads them when, in
// addition, no token starts with a byte that is not plain (quote, '#', '_',
// ';') and none is a reserved word; reserved words all hold '_', so they
// are looked for only in lines that hold one. Anything else goes the
// byte-by-byte way (fastAtomRow), which starts a new template. The
// template needs lineMasks in assembly (amd64 with AVX2); elsewhere every
// line goes the byte-by-byte way.

// maxTplLen bounds the length of a template line, newline included (two
// words of mask bits).
const maxTplLen = 128

// tplMaxMisses is how many lines in a row may fail the template before the
// loop stops trying it (the file is not column-aligned).
const tplMaxMisses = 16

// lineMasks holds, for up to 128 bytes of a line, one bit per byte (bit i
// of word i/64) of: ns, not a space; chg, differs from the byte one line
// before; bad, a control byte or not ASCII; spec, a byte that cannot start
// a plain value (a quote, '#', ';' or '_'); under, '_'. The assembly
// stores each word whole (a word read back from two narrower stores would
// stall the load).
type lineMasks struct {
	ns, chg, bad, spec, under [2]uint64
}

// join returns the two words of a mask cut to the content.
func join(m *[2]uint64, content *[2]uint64) (uint64, uint64) {
	return m[0] & content[0], m[1] & content[1]
}

// template is the layout of the last line read by a fast path.
type template struct {
	length   int // line length with the newline; 0: none
	words    int // 64-byte blocks (mask words) covering the content
	ncol     int
	prevLine int // offset of the line the template last matched (or was made from)
	misses   int
	off      bool
	hits     int // rows read through the template (never reset; tests read it)

	content [2]uint64              // bits of the content bytes (all but the newline)
	start   [2]uint64              // token-start bits
	col     [maxFastCols]int32     // each column's offset in the line
	region  [maxFastCols][2]uint64 // each column's token and the blanks after it
	width   [maxFastCols]int32     // the bytes in region
	keyMask [2]uint64              // the residue key columns' regions
}

func (t *template) reset() {
	t.length, t.prevLine, t.misses, t.off = 0, -1, 0, false
}

// set makes the line data[p:q] (q at its '\n'), just read byte by byte with
// its token spans s, the template; keyCols[:nKey] are the residue key's
// columns.
func (t *template) set(data []byte, p, q int, s []int32, keyCols *[5]int, nKey int) {
	t.misses++
	l := q - p + 1
	if !haveLineMasks || t.off || q >= len(data) || l > maxTplLen {
		t.length = 0
		return
	}
	if t.misses > tplMaxMisses {
		t.off, t.length = true, 0
		return
	}
	t.length, t.words, t.ncol, t.prevLine = l, (l-1+63)>>6, len(s), p
	t.content = bitRange(0, int32(l-1))
	t.start = [2]uint64{}
	for c := range s {
		o := s[c] - int32(p)
		t.col[c] = o
		t.start[o>>6] |= 1 << (o & 63)
	}
	for c := range s {
		end := int32(l - 1)
		if c+1 < len(s) {
			end = t.col[c+1]
		}
		t.region[c] = bitRange(t.col[c], end)
		t.width[c] = end - t.col[c]
	}
	t.keyMask = [2]uint64{}
	for _, c := range keyCols[:nKey] {
		t.keyMask[0] |= t.region[c][0]
		t.keyMask[1] |= t.region[c][1]
	}
}

// bitRange returns the bits [from, to) of a two-word mask.
func bitRange(from, to int32) (m [2]uint64) {
	for i := from; i < to; i++ {
		m[i>>6] |= 1 << (i & 63)
	}
	return m
}

func (t *template) changed(chg0, chg1 uint64, c int) bool {
	return chg0&t.region[c][0]|chg1&t.region[c][1] != 0
}

// templateRow reads the row on the line at data[p], which directly follows
// the template's line, when it matches the template (see above); it
// returns the position of the line's '\n'. ok is false, with nothing
// changed, when it does not match.
func (b *builder) templateRow(data []byte, p int) (end int, ok bool) {
	f := &b.fast
	t := &f.tpl
	l := t.length
	nl := p + l - 1
	if p+64*t.words > len(data) || nl >= len(data) || data[nl] != '\n' {
		return p, false
	}
	var m lineMasks
	lineMasksAt(data, p, p-l, t.words, &m)
	ns0, ns1 := join(&m.ns, &t.content)
	bad0, bad1 := join(&m.bad, &t.content)
	spec0, spec1 := join(&m.spec, &t.content)
	st0 := ns0 &^ (ns0 << 1)
	st1 := ns1 &^ (ns1<<1 | ns0>>63)
	if bad0|bad1|st0&spec0|st1&spec1 != 0 || st0 != t.start[0] || st1 != t.start[1] {
		return p, false
	}
	ns := [2]uint64{ns0, ns1}
	if u0, u1 := join(&m.under, &t.content); u0|u1 != 0 {
		for c := 0; c < t.ncol; c++ {
			s := int32(p) + t.col[c]
			if kwFirst[data[s]] && maybeKeyword(data[s:int32(p)+runEnd(&ns, t.col[c])]) {
				return p, false
			}
		}
	}
	// the line is a row: read what changed
	t.prevLine, t.misses = p, 0
	t.hits++
	chg0, chg1 := join(&m.chg, &t.content)
	base := int32(p)
	for k, c := range [...]int{f.occ, f.bf} {
		if t.changed(chg0, chg1, c) {
			f.scanNumber(data, int(base+t.col[c]), int8(k))
		}
	}
	for k, c := range [...]int{f.x, f.y, f.z} { // they change from row to row
		f.scanNumber(data, int(base+t.col[c]), int8(2+k))
	}
	if c := f.name; t.changed(chg0, chg1, c) {
		f.lastName = b.regionName(data, base, &ns, c, &f.regNames, &f.tokNames, false)
	}
	if c := f.elem; t.changed(chg0, chg1, c) {
		f.lastElem = b.regionName(data, base, &ns, c, &f.regElems, &f.tokElems, true)
	}
	if c := f.alt; t.changed(chg0, chg1, c) {
		f.lastAlt = 0
		if s, e := base+t.col[c], base+runEnd(&ns, t.col[c]); !isNull(data, s, e) {
			f.lastAlt = data[s]
		}
	}
	ri := b.curRes
	if chg0&t.keyMask[0]|chg1&t.keyMask[1] != 0 || !f.keyValid || ri < 0 {
		for c := 0; c < t.ncol; c++ {
			f.s[c], f.e[c] = base+t.col[c], base+runEnd(&ns, t.col[c])
		}
		ri = b.keyedResidue(data)
	}
	b.addAtom(ri)
	return nl, true
}

// kwFirst marks the first bytes of reserved words (data_, save_, loop_,
// stop_, global_).
var kwFirst = func() (t [256]bool) {
	for _, c := range "dDsSlLgG" {
		t[c] = true
	}
	return t
}()

// runEnd returns the offset just past the run of set bits of ns that starts
// at bit o (the end of the token that starts there).
func runEnd(ns *[2]uint64, o int32) int32 {
	i, sh := o>>6, o&63
	r := int32(bits.TrailingZeros64(^(ns[i] >> sh)))
	if r == 64-sh && i == 0 {
		r += int32(bits.TrailingZeros64(^ns[1]))
	}
	return o + r
}

// regionName is cachedName of column c's token on the template line at
// base, looked up first in rc by the column's region (its token and the
// blanks after it) when that fits a word: the region's bytes decide the
// token, so no token end is needed.
func (b *builder) regionName(data []byte, base int32, ns *[2]uint64, c int, rc, tc *nameCache, upper bool) string {
	t := &b.fast.tpl
	s := base + t.col[c]
	w := t.width[c]
	var key, h uint64
	cached := w <= 8 && int(s)+8 <= len(data)
	if cached {
		key = binary.LittleEndian.Uint64(data[s:]) & lenMask[w]
		h = (key * 0x9E3779B97F4A7C15) >> 56
		if rc.key[h] == key {
			return rc.val[h]
		}
	}
	name := b.cachedName(data, s, base+runEnd(ns, t.col[c]), tc, upper)
	if cached {
		rc.key[h], rc.val[h] = key, name
	}
	return name
}
