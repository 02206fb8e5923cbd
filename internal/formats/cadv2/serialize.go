package cadv2

import "strconv"

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

// serialize writes the document (spec section 3) into g.buf. Every token
// after the first is written with its leading space.
func (g *Generator) serialize(p *Protein, plddt string, k1, insert int, atEnd bool, nContacts int) Doc {
	const think = " <think>"
	b := append(g.buf[:0], "<contacts-and-distances-v2> <begin_sequence>"...)
	tokens := 2 + len(p.Res) + 1
	for _, c := range p.Res {
		b = append(b, residueTokens[c]...)
	}
	b = append(b, " <begin_statements>"...)
	sp := " " + plddt
	for k, o := range g.order {
		for range g.slots[k] {
			b = append(b, think...)
		}
		tokens += int(g.slots[k])
		if insert == k {
			b = append(b, sp...)
			tokens++
		}
		s := &g.stmts[o.idx]
		b = append(b, kindHead[s.kind]...)
		b = posToken(b, s.i)
		b = posToken(b, s.j)
		if s.kind == kindDistance {
			b = append(b, atomTokens[s.ai]...)
			b = append(b, atomTokens[s.aj]...)
			b = append(b, g.distTokens[s.bin-1]...)
		}
		tokens += kindTokens[s.kind]
	}
	ns := len(g.order)
	if ns == 0 {
		for range k1 {
			b = append(b, think...)
		}
		tokens += k1
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
	return Doc{Document: b, NumTokens: tokens, ContactsEmitted: nContacts, DistancesEmitted: ns - nContacts}
}
