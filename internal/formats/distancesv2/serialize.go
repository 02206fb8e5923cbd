package distancesv2

import (
	"encoding/binary"
	"slices"
	"strconv"
)

var residueTokens = func() [len(aminoAcids) + 1]string {
	var t [len(aminoAcids) + 1]string
	for i, n := range aminoAcids {
		t[i] = " <" + n + ">"
	}
	t[unk] = " <UNK>"
	return t
}()

var atomTokens = func() [len(atomVocab)]string {
	var t [len(atomVocab)]string
	for i, n := range atomVocab {
		t[i] = " <" + n + ">"
	}
	return t
}()

// Statement heads (each with its leading space) and the per-kind token
// counts of a statement.
var (
	kindHead   = [...]string{" <long-range-contact>", " <medium-range-contact>", " <short-range-contact>", " <distance>"}
	kindTokens = [...]int{3, 3, 3, 6}
)

// posToken appends " <p{i+1}>".
func posToken(b []byte, i int32) []byte {
	b = append(b, " <p"...)
	b = strconv.AppendInt(b, int64(i)+1, 10)
	return append(b, '>')
}

// wtok is a token of at most 24 bytes as three little-endian words, so
// that writing it is three stores (longer tokens keep only s).
type wtok struct {
	w [3]uint64
	n int
	s string
}

func newWtok(s string) wtok {
	t := wtok{n: len(s), s: s}
	if len(s) <= 24 {
		var b [24]byte
		copy(b[:], s)
		for k := range t.w {
			t.w[k] = binary.LittleEndian.Uint64(b[8*k:])
		}
	}
	return t
}

func wtoks(ss []string) []wtok {
	out := make([]wtok, len(ss))
	for i, s := range ss {
		out[i] = newWtok(s)
	}
	return out
}

var (
	residueW = wtoks(residueTokens[:])
	atomW    = wtoks(append(atomTokens[:], "")) // noAtom: empty
	headW    = wtoks(kindHead[:])
	thinkW   = newWtok(" <think>")
)

// appendW appends t: three stores when b has 24 bytes of room (serialize
// reserves it), append otherwise.
func appendW(b []byte, t *wtok) []byte {
	l := len(b)
	if t.n <= 24 && cap(b)-l >= 24 {
		b = b[:l+24]
		binary.LittleEndian.PutUint64(b[l:], t.w[0])
		binary.LittleEndian.PutUint64(b[l+8:], t.w[1])
		binary.LittleEndian.PutUint64(b[l+16:], t.w[2])
		return b[:l+t.n]
	}
	return append(b, t.s...)
}

// maxPosTab bounds the position tokens kept as words: " <p9999>" is the
// longest that fits in 8 bytes.
const maxPosTab = 9999

// growPos extends g's table of position tokens to cover n residues.
func (g *Generator) growPos(n int) {
	n = min(n, maxPosTab)
	for i := len(g.posTok); i < n; i++ {
		t := posToken(nil, int32(i))
		var w [8]byte
		copy(w[:], t)
		g.posTok = append(g.posTok, binary.LittleEndian.Uint64(w[:]))
		g.posLen = append(g.posLen, uint8(len(t)))
	}
}

// appendPos is posToken through g's table: one 8-byte store when b has
// room (serialize reserves it), posToken otherwise.
func (g *Generator) appendPos(b []byte, i int32) []byte {
	l := len(b)
	if int(i) < len(g.posTok) && cap(b)-l >= 8 {
		b = b[:l+8]
		binary.LittleEndian.PutUint64(b[l:], g.posTok[i])
		return b[:l+int(g.posLen[i])]
	}
	return posToken(b, i)
}

// serialize writes the document (spec section 3) into g.buf. Every token
// after the first is written with its leading space.
func (g *Generator) serialize(p *Protein, plddt string, k1, insert int, atEnd bool, nContacts int) Doc {
	const thinkTok = " <think>"
	g.growPos(len(p.Res))
	// room for every statement's tokens (head, two positions, two atoms,
	// a bin: at most 64 bytes while positions have 4 digits), the
	// sequence and the think tokens, so that appendPos stores directly
	thinks := k1
	for _, run := range g.runs {
		thinks += run
	}
	b := slices.Grow(g.buf[:0], 64*len(g.order)+8*(len(p.Res)+thinks)+160)
	b = append(b, "<contacts-and-distances-v2> <begin_sequence>"...)
	tokens := 2 + len(p.Res) + 1
	for _, c := range p.Res {
		b = appendW(b, &residueW[c])
	}
	b = append(b, " <begin_statements>"...)
	sp := " " + plddt
	var stmts [4]int
	think := 0
	for k, o := range g.order {
		for range g.slots[k] {
			b = appendW(b, &thinkW)
		}
		tokens += int(g.slots[k])
		think += int(g.slots[k])
		if insert == k {
			b = append(b, sp...)
			tokens++
		}
		s := &g.stmts[uint32(o)]
		b = appendW(b, &headW[s.kind])
		b = g.appendPos(b, s.i)
		b = g.appendPos(b, s.j)
		// empty for contacts: no branch on the kind
		b = appendW(b, &atomW[s.ai])
		b = appendW(b, &atomW[s.aj])
		b = appendW(b, &g.distW[s.bin])
		tokens += kindTokens[s.kind]
		stmts[s.kind]++
	}
	ns := len(g.order)
	if ns == 0 {
		for range k1 {
			b = append(b, thinkTok...)
		}
		tokens += k1
		think += k1
	}
	if insert >= ns {
		b = append(b, sp...)
		tokens++
	}
	if atEnd {
		b = append(b, sp...)
		tokens++
	}
	b = append(b, " <end>"...)
	tokens++
	g.buf = b
	return Doc{Document: b, NumTokens: tokens, ContactsEmitted: nContacts, DistancesEmitted: ns - nContacts, Statements: stmts, Think: think}
}
