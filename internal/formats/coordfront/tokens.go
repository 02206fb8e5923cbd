package coordfront

import (
	"strconv"
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

// spaced are the token tables with a leading space, for Writer.Sp.
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

// PositionSp is " <p{i}>", for Writer.Sp.
func PositionSp(i int) string {
	if i >= 0 && i < len(positionSp) {
		return positionSp[i]
	}
	return " " + PositionToken(i)
}

// XYZSp is " " + XYZToken(dx, dy, dz), for Writer.Sp.
func XYZSp(dx, dy, dz int) string { return xyzSp[100*dx+10*dy+dz] }

// AtomSp is " " + AtomToken(name), for Writer.Sp.
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

// Sp appends one token given with its leading space (the ...Sp tables);
// the writer must already hold a token.
func (w *Writer) Sp(spacedTok string) {
	w.Buf = append(w.Buf, spacedTok...)
	w.Tokens++
}
