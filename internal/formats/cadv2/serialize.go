package cadv2

import "strconv"

var residueTokens = func() [len(aminoAcids) + 1]string {
	var t [len(aminoAcids) + 1]string
	for i, n := range aminoAcids {
		t[i] = "<" + n + ">"
	}
	t[unk] = "<UNK>"
	return t
}()

var atomTokens = func() [len(atomVocab)]string {
	var t [len(atomVocab)]string
	for i, n := range atomVocab {
		t[i] = "<" + n + ">"
	}
	return t
}()

// serialize writes the document (spec section 3) into g.buf.
func (g *Generator) serialize(p *Protein, plddt string, k1, insert int, atEnd bool, nContacts int) Doc {
	b := g.buf[:0]
	tokens := 0
	tok := func(s string) {
		if tokens > 0 {
			b = append(b, ' ')
		}
		b = append(b, s...)
		tokens++
	}
	pos := func(i int32) {
		b = append(b, " <p"...)
		b = strconv.AppendInt(b, int64(i)+1, 10)
		b = append(b, '>')
		tokens++
	}
	tok("<contacts-and-distances-v2>")
	tok("<begin_sequence>")
	for _, c := range p.Res {
		tok(residueTokens[c])
	}
	tok("<begin_statements>")
	for k, o := range g.order {
		for range g.slots[k] {
			tok("<think>")
		}
		if insert == k {
			tok(plddt)
		}
		s := &g.stmts[o.idx]
		tok(kindToken[s.kind])
		pos(s.i)
		pos(s.j)
		if s.kind == kindDistance {
			tok(atomTokens[s.ai])
			tok(atomTokens[s.aj])
			tok(g.distTokens[s.bin-1])
		}
	}
	ns := len(g.order)
	if ns == 0 {
		for range k1 {
			tok("<think>")
		}
	}
	if insert >= ns {
		tok(plddt)
	}
	if atEnd {
		tok(plddt)
	}
	tok("<end>")
	g.buf = b
	return Doc{Document: b, NumTokens: tokens, ContactsEmitted: nContacts, DistancesEmitted: ns - nContacts}
}
