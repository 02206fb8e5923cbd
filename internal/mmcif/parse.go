package mmcif

import (
	"fmt"
)

// val is one value token: its span and whether it was quoted (a quoted '.'
// or '?' is a literal, not a null).
type val struct {
	s, e int32
	q    bool
}

// table is a small category read into spans (used for _entity and
// _struct_asym; _atom_site loops are streamed row by row instead).
type table struct {
	tags []string // item names, lower case, without the category prefix
	vals []val    // row-major
}

func (t *table) col(name string) int {
	for i, n := range t.tags {
		if n == name {
			return i
		}
	}
	return -1
}

func (t *table) rows() int {
	if len(t.tags) == 0 {
		return 0
	}
	return len(t.vals) / len(t.tags)
}

// category prefixes we read; everything else is tokenized and skipped.
const (
	catAtomSite   = "_atom_site."
	catEntity     = "_entity."
	catStructAsym = "_struct_asym."
)

// lowerTag returns the tag lower-cased, interned in b.
func (b *builder) lowerTag(t []byte) string {
	var buf [64]byte
	s := buf[:0]
	if len(t) > len(buf) {
		s = make([]byte, 0, len(t))
	}
	for _, c := range t {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		s = append(s, c)
	}
	return b.in(s)
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && eqFold(b[:len(prefix)], prefix)
}

// document is what parse collects from the first data block; later blocks
// are checked for syntax only (gemmi reads the structure from the first).
type document struct {
	nBlocks   int
	name      string
	entity    table
	asym      table
	atomPairs table // _atom_site given as tag-value pairs (one atom)
}

// parse tokenizes the whole input, checking CIF syntax as gemmi does
// (every loop must hold a multiple of its tag count), streams the first
// block's _atom_site loop rows into b, and returns the small categories.
// In a headers-only read (b.hdr set, ReadCategories) it builds nothing:
// b.hdr collects the wanted categories and every other loop, _atom_site
// included, is only counted; the choice is made once per pair and once per
// loop, never per row.
func parse(data []byte, b *builder) (*document, error) {
	doc := b.resetDocument()
	l := lexer{data: data}
	var (
		pending bool // a token was read ahead by the loop reader
		pk      tokKind
		psp     span
		inFirst bool
		inFrame bool // inside a save_ frame: its items are not the block's
	)
	if b.seenFrames == nil {
		b.seenFrames, b.seenBlocks = map[string]bool{}, map[string]bool{}
	}
	clear(b.seenBlocks)
	b.seenTags.reset()
	for {
		var (
			k   tokKind
			sp  span
			err error
		)
		afterLoop := pending
		if pending {
			k, sp, pending = pk, psp, false
		} else if k, sp, err = l.next(); err != nil {
			return nil, err
		}
		if inFrame && (k == tEOF || k == tData || k == tGlobal) {
			return nil, &syntaxError{int(sp.s), "save_ frame not closed (no save_ before the end of the block)"}
		}
		switch k {
		case tEOF:
			return doc, nil
		case tData, tGlobal:
			if err := b.newBlock(k, data[sp.s:sp.e], int(sp.s)); err != nil {
				return nil, err
			}
			doc.nBlocks++
			inFirst = doc.nBlocks == 1
			if inFirst && k == tData && b.hdr == nil {
				doc.name = string(data[sp.s:sp.e])
				if doc.name == "" {
					doc.name = "#" // gemmi 0.5.7 names an empty data_ block "#"
				}
			}
		case tSave:
			// save frames are not used by mmCIF coordinates; their content
			// is still tokenized and syntax-checked below.
			if err := b.frame(data[sp.s:sp.e], int(sp.s), &inFrame); err != nil {
				return nil, err
			}
		case tStop:
			if !afterLoop {
				return nil, &syntaxError{int(sp.s), "stop_ outside a loop"}
			}
		case tValue, tQuoted, tText:
			return nil, &syntaxError{int(sp.s), fmt.Sprintf("value %.20q without a tag", string(data[sp.s:sp.e]))}
		case tTag:
			if err := b.pair(&l, sp, inFirst, inFrame); err != nil {
				return nil, err
			}
		case tLoop:
			if pk, psp, err = b.loop(&l, sp, inFirst, inFrame); err != nil {
				return nil, err
			}
			pending = true
		}
	}
}

// resetDocument empties b.doc for a new read, keeping its tables' storage,
// and returns it.
func (b *builder) resetDocument() *document {
	doc := &b.doc
	*doc = document{
		entity:    table{tags: doc.entity.tags[:0], vals: doc.entity.vals[:0]},
		asym:      table{tags: doc.asym.tags[:0], vals: doc.asym.vals[:0]},
		atomPairs: table{tags: doc.atomPairs.tags[:0], vals: doc.atomPairs.vals[:0]},
	}
	return doc
}

// category says where the first block's items under tag go: the
// _atom_site rows (atomSite), or a table (nil: the category is not read),
// and the prefix cut from their names.
func (b *builder) category(tag []byte) (t *table, prefix string, atomSite bool) {
	switch {
	case hasPrefixFold(tag, catAtomSite):
		return nil, catAtomSite, true
	case hasPrefixFold(tag, catEntity):
		return &b.doc.entity, catEntity, false
	case hasPrefixFold(tag, catStructAsym):
		return &b.doc.asym, catStructAsym, false
	case b.ext != nil:
		t, prefix = b.entryTable(tag)
		return t, prefix, false
	}
	return nil, "", false
}

// pair reads a tag-value pair whose tag is the token at sp: it checks the
// pair (a value follows; the tag is new in the block) and, in the first
// block outside save_ frames, collects it into its category's table
// (_atom_site pairs into doc.atomPairs: one atom).
func (b *builder) pair(l *lexer, sp span, inFirst, inFrame bool) error {
	if b.doc.nBlocks == 0 {
		return &syntaxError{int(sp.s), "tag before the first data_ block"}
	}
	tag := l.data[sp.s:sp.e]
	vk, vsp, err := l.next()
	if err != nil {
		return err
	}
	if vk != tValue && vk != tQuoted && vk != tText {
		return &syntaxError{int(sp.s), fmt.Sprintf("tag %s has no value", tag)}
	}
	if inFrame {
		return nil
	}
	if err := b.newTag(sp); err != nil {
		return err
	}
	if !inFirst {
		return nil
	}
	if b.hdr != nil {
		b.hdr.pair(l.data, tag, vsp, vk)
		return nil
	}
	t, prefix, atomSite := b.category(tag)
	if atomSite {
		t = &b.doc.atomPairs
	}
	if t != nil {
		t.tags = append(t.tags, b.lowerTag(tag[len(prefix):]))
		t.vals = append(t.vals, val{vsp.s, vsp.e, vk != tValue})
	}
	return nil
}

// loop reads a loop_ whose keyword is the token at sp: its tags into
// b.loopTags, then its values, which it streams into the atoms (the first
// block's _atom_site loop), collects into its category's table, or only
// counts, checking that they fill whole rows. It returns the token after
// the values, which the caller handles next.
func (b *builder) loop(l *lexer, sp span, inFirst, inFrame bool) (tokKind, span, error) {
	loopStart := int(sp.s)
	if b.doc.nBlocks == 0 {
		return 0, span{}, &syntaxError{loopStart, "loop_ before the first data_ block"}
	}
	k, sp, first, err := b.loopHeader(l, inFrame)
	if err != nil {
		return 0, span{}, err
	}
	if len(b.loopTags) == 0 {
		return 0, span{}, &syntaxError{loopStart, "loop_ without tags"}
	}
	var t *table
	var prefix string
	atoms := false
	if inFirst && !inFrame {
		if b.hdr != nil {
			// headers only: no atom is built, _atom_site is counted
			t = b.hdr.startLoop(first)
		} else if t, prefix, atoms = b.category(first); t != nil || atoms {
			b.loopColumns(l.data, t, prefix, atoms)
		}
	}
	if atoms {
		b.startAtoms(b.names)
		b.reserveAtoms(int(sp.s))
	}
	ncol := len(b.loopTags)
	count := 0
	if k, sp, count, err = scanLoopValues(l, k, sp, ncol, atoms, t, b); err != nil {
		return 0, span{}, err
	}
	if count%ncol != 0 {
		return 0, span{}, &syntaxError{loopStart, fmt.Sprintf("wrong number of values in the loop %s...: %d values for %d tags", first, count, ncol)}
	}
	if atoms {
		b.endAtoms()
	} else if t != nil && b.hdr != nil {
		b.hdr.endLoop(l.data, b.loopTags)
	}
	return k, sp, nil
}

// loopHeader reads a loop's tags into b.loopTags (checking, outside save_
// frames, that each is new in the block) and returns the token after them
// and the first tag (nil: none).
func (b *builder) loopHeader(l *lexer, inFrame bool) (k tokKind, sp span, first []byte, err error) {
	b.loopTags = b.loopTags[:0]
	for {
		if k, sp, err = l.next(); err != nil {
			return k, sp, first, err
		}
		if k != tTag {
			return k, sp, first, nil
		}
		if first == nil {
			first = l.data[sp.s:sp.e]
		}
		if !inFrame {
			if err := b.newTag(sp); err != nil {
				return k, sp, first, err
			}
		}
		b.loopTags = append(b.loopTags, sp)
	}
}

// loopColumns names the columns of the loop whose tags are b.loopTags:
// lower case, the category prefix cut, into t's tags (its values emptied)
// or, for the _atom_site loop (atoms), into b.names.
func (b *builder) loopColumns(data []byte, t *table, prefix string, atoms bool) {
	var names []string
	if t != nil {
		names = t.tags[:0]
	} else if atoms {
		names = b.names[:0]
	}
	for _, tsp := range b.loopTags {
		name := ""
		if tg := data[tsp.s:tsp.e]; len(tg) > len(prefix) {
			name = b.lowerTag(tg[len(prefix):])
		}
		names = append(names, name)
	}
	if t != nil {
		*t = table{tags: names, vals: t.vals[:0]}
	} else if atoms {
		b.names = names
	}
}

// newBlock checks a data_ block heading as gemmi's check_for_duplicates
// does (block names compared without case; global_ blocks are not named)
// and starts the block's tag and frame sets.
func (b *builder) newBlock(k tokKind, name []byte, off int) error {
	b.seenTags.reset()
	clear(b.seenFrames)
	if k != tData {
		return nil
	}
	key := "#" // gemmi names a bare data_ block "#"
	if len(name) > 0 {
		key = b.lowerTag(name)
	}
	if b.seenBlocks[key] {
		return &syntaxError{off, fmt.Sprintf("duplicate block name data_%s", name)}
	}
	b.seenBlocks[key] = true
	return nil
}

// newTag refuses a tag that the block already has (a pair or a loop
// column, compared without case), as gemmi's check_for_duplicates does.
// Tags inside save_ frames are not checked, as in gemmi.
func (b *builder) newTag(sp span) error {
	if !b.seenTags.add(b.data, sp) {
		return &syntaxError{int(sp.s), fmt.Sprintf("duplicate tag %s", b.data[sp.s:sp.e])}
	}
	return nil
}

// frame handles save_NAME (a frame starts) and save_ (it ends) as gemmi's
// grammar does: no frame in a frame, no save_ without an open frame, no
// two frames of one name (without case) in a block.
func (b *builder) frame(tok []byte, off int, inFrame *bool) error {
	if len(tok) == len("save_") {
		if !*inFrame {
			return &syntaxError{off, "unnamed save_ frame"}
		}
		*inFrame = false
		return nil
	}
	if *inFrame {
		return &syntaxError{off, fmt.Sprintf("%s inside a save_ frame", tok)}
	}
	key := b.lowerTag(tok)
	if b.seenFrames[key] {
		return &syntaxError{off, fmt.Sprintf("duplicate %s", tok)}
	}
	b.seenFrames[key] = true
	*inFrame = true
	return nil
}

// plain marks bytes that may appear in an unquoted value and that cannot
// start anything else: printable ASCII except the quote characters, '#'
// '_' (a tag) and ';' (a text field at the start of a line; elsewhere the
// full lexer handles it).
var plain = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = true
	}
	t['\''], t['"'], t['#'], t['_'], t[';'] = false, false, false, false, false
	return t
}()

// maybeKeyword reports whether an unquoted token could be a reserved word
// (data_, save_, loop_, stop_, global_); such tokens take the full lexer.
func maybeKeyword(t []byte) bool {
	if len(t) < 5 {
		return false
	}
	switch t[0] | 0x20 {
	case 'd', 's', 'l':
		return t[4] == '_'
	case 'g':
		return len(t) == 7 && t[6] == '_'
	}
	return false
}

// wsTab marks CIF whitespace.
var wsTab = func() (ws [256]bool) {
	ws[' '], ws['\t'], ws['\n'], ws['\r'] = true, true, true, true
	return
}()

// scanLoopValues consumes the values of a loop starting with the current
// token (k, sp), streaming _atom_site rows into b (atoms) or collecting
// them into t, or only counting them. It returns the first token after the
// values and the value count.
func scanLoopValues(l *lexer, k tokKind, sp span, ncol int, atoms bool, t *table, b *builder) (tokKind, span, int, error) {
	data := l.data
	n := len(data)
	col, count := 0, 0
	// values that are only counted are counted 32 bytes at a time
	blocks := !atoms && t == nil && !b.noFast && haveLineMasks
	for k == tValue || k == tQuoted || k == tText {
		// the token in hand (from the full lexer)
		v := val{sp.s, sp.e, k != tValue}
		for {
			if atoms {
				if f := b.colOf[col]; f >= 0 {
					b.fields[f] = v
				}
				col++
				if col == ncol {
					col = 0
					b.atomRow()
				}
			} else if t != nil {
				t.vals = append(t.vals, v)
			}
			count++
			// Fast path for the common unquoted value: skip blanks, then
			// scan printable ASCII up to whitespace. Anything unusual
			// (quote, comment, text field, tag, keyword, odd byte) goes
			// through the full lexer.
			p := l.pos
			for p < n && wsTab[data[p]] {
				p++
			}
			if atoms && col == 0 && !b.noFast {
				// whole rows on their own lines, the common case
				for p < n && plain[data[p]] {
					q, rows := b.fastAtomRow(data, p, ncol)
					if rows == 0 {
						break
					}
					count += rows * ncol
					for q < n && wsTab[data[q]] {
						q++
					}
					p = q
				}
			}
			if blocks && p+32 <= n {
				if tokens, done, last := countPlain(data, p); done > 0 {
					q := p + 32*done
					if last != 0 { // the last value runs on: leave it to the byte loop
						for q > p && !wsTab[data[q-1]] {
							q--
						}
						tokens--
					}
					count += tokens
					b.blockValues += tokens
					for q < n && wsTab[data[q]] {
						q++
					}
					p = q
				}
			}
			if p >= n || !plain[data[p]] {
				l.pos = p
				break
			}
			q := p + 1
			for q < n && data[q]-'!' < '~'-'!'+1 {
				q++
			}
			if (q < n && !wsTab[data[q]]) || (q-p >= 5 && maybeKeyword(data[p:q])) {
				l.pos = p
				break
			}
			l.pos = q
			v = val{int32(p), int32(q), false}
		}
		var err error
		if k, sp, err = l.next(); err != nil {
			return 0, span{}, 0, err
		}
	}
	return k, sp, count, nil
}
