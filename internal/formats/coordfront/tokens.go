package coordfront

import (
	"slices"
	"strconv"
	"unsafe"
)

// Framing tokens of both formats.
const (
	TokBeginSequence   = "<begin_sequence>"
	TokBeginStatements = "<begin_statements>"
	TokContact         = "<contact>"
	TokNTerm           = "<n-term>"
	TokCTerm           = "<c-term>"
	TokEnd             = "<end>"
)

// positionTokens are "<p0>" .. "<p1999>".
var positionTokens = func() []string {
	t := make([]string, 2000)
	for i := range t {
		t[i] = "<p" + strconv.Itoa(i) + ">"
	}
	return t
}()

// spaced are the token tables with a leading space (the Tok16 tables).
var (
	positionSp = spaced(positionTokens)
	xyzSp      = spaced(xyzTokens)
)

func spaced(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = " " + t
	}
	return out
}

// AtomSp is " " + AtomToken(name).
func AtomSp(name string) string {
	if t, ok := atomSp[name]; ok {
		return t
	}
	return " " + AtomToken(name)
}

// PositionToken is "<p{i}>".
func PositionToken(i int) string {
	if i >= 0 && i < len(positionTokens) {
		return positionTokens[i]
	}
	return "<p" + strconv.Itoa(i) + ">"
}

// xyzTokens are "<xyz-000>" .. "<xyz-999>".
var xyzTokens = func() []string {
	t := make([]string, 1000)
	for i := range t {
		s := strconv.Itoa(i)
		for len(s) < 3 {
			s = "0" + s
		}
		t[i] = "<xyz-" + s + ">"
	}
	return t
}()

// XYZToken is "<xyz-{100*dx + 10*dy + dz:03d}>" for digits dx, dy, dz.
func XYZToken(dx, dy, dz int) string { return xyzTokens[100*dx+10*dy+dz] }

// AtomToken is "<{name}>" (e.g. "<CA>"), from a table for the vocabulary.
func AtomToken(name string) string {
	if t, ok := atomTokens[name]; ok {
		return t
	}
	return "<" + name + ">"
}

var atomTokens, atomSp = func() (map[string]string, map[string]string) {
	m := make(map[string]string, len(vocabAtoms))
	sp := make(map[string]string, len(vocabAtoms))
	for n := range vocabAtoms {
		m[n] = "<" + n + ">"
		sp[n] = " <" + n + ">"
	}
	return m, sp
}()

// Writer appends space-separated tokens to a byte buffer and counts them.
type Writer struct {
	Buf    []byte
	Tokens int
}

// Tok appends one token.
func (w *Writer) Tok(t string) {
	if w.Tokens > 0 {
		w.Buf = append(w.Buf, ' ')
	}
	w.Buf = append(w.Buf, t...)
	w.Tokens++
}

// PutSlack is the room past its last byte a buffer needs for Put and
// PutXYZ3 to write into it without a reallocation (their fixed-size
// stores run past the bytes they keep).
const PutSlack = 2*xyzLen + 16

// Detach returns a writer with w's tokens in a new buffer of capacity
// for exactly more bytes beyond them (plus PutSlack), so that a document
// whose length is known can be written straight into the memory it will
// keep (see Text).
func (w *Writer) Detach(more int) Writer {
	buf := make([]byte, len(w.Buf), len(w.Buf)+more+PutSlack)
	copy(buf, w.Buf)
	return Writer{Buf: buf, Tokens: w.Tokens}
}

// Text is buf's bytes as a string, without a copy: the caller must never
// write buf again (a buffer from Detach that nothing else holds).
func Text(buf []byte) string { return unsafe.String(unsafe.SliceData(buf), len(buf)) }

// Tok16 is a token with its leading space (at most 15 bytes), padded to
// 16 bytes with its length in the last byte, so that Writer.Put copies it
// with one fixed-size move instead of a variable-length append.
type Tok16 [16]byte

// MakeTok16 is spaced (a token with its leading space) as a Tok16; it
// panics when spaced is longer than 15 bytes (a programming error: every
// vocabulary token is shorter).
func MakeTok16(spaced string) Tok16 {
	if len(spaced) > 15 {
		panic("coordfront: token " + spaced + " is longer than 15 bytes")
	}
	var t Tok16
	copy(t[:], spaced)
	t[15] = byte(len(spaced))
	return t
}

func tok16s(spaced []string) []Tok16 {
	out := make([]Tok16, len(spaced))
	for i, s := range spaced {
		out[i] = MakeTok16(s)
	}
	return out
}

var (
	position16 = tok16s(positionSp)
	xyz16      = tok16s(xyzSp)
	vocab16    = tok16s(vocabSp)
)

// XYZ16s is the table XYZ16 indexes, and Vocab16s the one Atom16 indexes
// by Atoms.Vocab, for kernels that index them themselves. Callers must
// not write them.
func XYZ16s() []Tok16   { return xyz16 }
func Vocab16s() []Tok16 { return vocab16 }

// XYZ16 is XYZSp(i/100, i/10%10, i%10) as a Tok16, for i in 0..999.
func XYZ16(i int) *Tok16 { return &xyz16[i] }

// Reserve makes room for n more Put calls without a reallocation.
func (w *Writer) Reserve(n int) {
	if free := cap(w.Buf) - len(w.Buf); free < 16*n {
		w.Buf = slices.Grow(w.Buf, 16*n)
	}
}

// Put appends one token given as a Tok16 (with its leading space); the
// writer must already hold a token. Reserve first, so that it never
// reallocates.
func (w *Writer) Put(t *Tok16) {
	n := len(w.Buf)
	if cap(w.Buf)-n < 16 {
		w.Buf = append(w.Buf, t[:]...)[:n]
	}
	*(*Tok16)(w.Buf[n : n+16]) = *t
	w.Buf = w.Buf[:n+int(t[15])]
	w.Tokens++
}

// xyzLen is the length of every " <xyz-DDD>" token.
const xyzLen = len(" <xyz-000>")

// PutXYZ3 appends the first k (1..3) of the tokens XYZ16(a), XYZ16(b) and
// XYZ16(c), writing all three (they are all xyzLen bytes) and keeping k,
// so that the count costs no branch.
func (w *Writer) PutXYZ3(a, b, c, k int) {
	n := len(w.Buf)
	if cap(w.Buf)-n < 2*xyzLen+16 {
		w.Buf = slices.Grow(w.Buf, 2*xyzLen+16)
	}
	buf := w.Buf[n : n+2*xyzLen+16]
	*(*Tok16)(buf[0:16]) = xyz16[a]
	*(*Tok16)(buf[xyzLen : xyzLen+16]) = xyz16[b]
	*(*Tok16)(buf[2*xyzLen : 2*xyzLen+16]) = xyz16[c]
	if uint(k-1) > 2 {
		panic("coordfront: PutXYZ3 keeps 1 to 3 tokens")
	}
	w.Buf = w.Buf[:n+k*xyzLen]
	w.Tokens += k
}

// Position16 is " <p{i}>" as a Tok16 (for Writer.Put).
func Position16(i int) *Tok16 {
	if uint(i) < uint(len(position16)) {
		return &position16[i]
	}
	return position16Slow(i)
}

func position16Slow(i int) *Tok16 {
	t := MakeTok16(" " + PositionToken(i))
	return &t
}

// Atom16 is atom i's token, e.g. " <CA>", as a Tok16 (for Writer.Put).
func (a *Atoms) Atom16(i int) *Tok16 { return &vocab16[a.Vocab[i]] }
