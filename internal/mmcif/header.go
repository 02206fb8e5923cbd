package mmcif

import (
	"errors"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// CIFValue is one value of a category as gemmi's
// Block.get_mmcif_category(raw=False) gives it: the text without quotes or
// text-field delimiters, and for an unquoted '?' or '.' the null kind
// (gemmi's None and False).
type CIFValue struct {
	Text string
	Null byte // '?' or '.' for an unquoted null; 0 otherwise
}

// CIFCategory is one category of a block, as gemmi's find_mmcif_category
// finds it: the first loop whose first tag has the category's prefix, or
// else every tag-value pair with that prefix, in file order.
type CIFCategory struct {
	Tags   []string     // item names after the prefix, as written
	Values [][]CIFValue // Values[i] holds column i, one value per row
	isLoop bool
}

// Column returns the values of the item named name (compared as written,
// like a Python dict key), or nil when the category has no such item.
func (c *CIFCategory) Column(name string) []CIFValue {
	if c == nil {
		return nil
	}
	for i, t := range c.Tags {
		if t == name {
			return c.Values[i]
		}
	}
	return nil
}

// CIFHeader is what ReadCategories reports of a document.
type CIFHeader struct {
	Blocks     int                     // data blocks in the document
	Categories map[string]*CIFCategory // the requested categories of the first block that it has
}

// ReadCategories reads an mmCIF document (plain or gzip, detected by the
// magic bytes) with exactly the syntax checks of Read (gemmi 0.5.7's
// grammar, duplicate tags and blocks, a multiple of the tag count in every
// loop) and returns the categories of its first data block named in
// prefixes (lower case with the trailing dot, "_refine."). No atom is
// built: the values of _atom_site and of every other loop are only
// counted, 32 bytes at a time where the bytes allow. Input that is not
// mmCIF (PDB format included) is an ErrUnknownFormat error. Errors are
// permanent and name the line where one applies; safe for concurrent use.
func ReadCategories(data []byte, prefixes []string) (_ *CIFHeader, err error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		if data, err = gunzip(data); err != nil {
			return nil, derrors.Permanent(fmt.Errorf("gzip: %w", err))
		}
	}
	switch detectFormat(data) {
	case formatCIF:
	case formatPDB:
		return nil, derrors.Permanent(fmt.Errorf("%w: PDB format; only mmCIF has the header categories", ErrUnknownFormat))
	default:
		return nil, derrors.Permanent(fmt.Errorf("%w: not mmCIF", ErrUnknownFormat))
	}
	b := getBuilder(data)
	defer b.release()
	h, err := parseCategories(data, b, prefixes)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			err = fmt.Errorf("line %d: %s", lineOf(data, se.off), se.msg)
		}
		return nil, derrors.Permanent(err)
	}
	if h.Blocks == 0 {
		return nil, derrors.Permanent(ErrNoBlock)
	}
	return h, nil
}

// wantedPrefix returns the prefix of prefixes that tag starts with
// (without case), or "".
func wantedPrefix(tag []byte, prefixes []string) string {
	for _, p := range prefixes {
		if hasPrefixFold(tag, p) {
			return p
		}
	}
	return ""
}

// cifValue converts a value token as gemmi's as_string and null rules do.
func cifValue(data []byte, v val) CIFValue {
	s := data[v.s:v.e]
	if !v.q && len(s) == 1 && (s[0] == '?' || s[0] == '.') {
		return CIFValue{Null: s[0]}
	}
	return CIFValue{Text: string(s)}
}

// parseCategories is parse's token loop (the same grammar and checks)
// collecting the wanted categories of the first block instead of atoms.
func parseCategories(data []byte, b *builder, prefixes []string) (*CIFHeader, error) {
	h := &CIFHeader{Categories: map[string]*CIFCategory{}}
	l := lexer{data: data}
	var (
		pending, inFirst, inFrame bool
		pk                        tokKind
		psp                       span
		loopTags                  []span
		loopVals                  table
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
			return h, nil
		case tData, tGlobal:
			if err := b.newBlock(k, data[sp.s:sp.e], int(sp.s)); err != nil {
				return nil, err
			}
			h.Blocks++
			inFirst = h.Blocks == 1
		case tSave:
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
			if h.Blocks == 0 {
				return nil, &syntaxError{int(sp.s), "tag before the first data_ block"}
			}
			tag := data[sp.s:sp.e]
			vk, vsp, err := l.next()
			if err != nil {
				return nil, err
			}
			if vk != tValue && vk != tQuoted && vk != tText {
				return nil, &syntaxError{int(sp.s), fmt.Sprintf("tag %s has no value", tag)}
			}
			if inFrame {
				continue
			}
			if err := b.newTag(sp); err != nil {
				return nil, err
			}
			if !inFirst {
				continue
			}
			if p := wantedPrefix(tag, prefixes); p != "" {
				c := h.Categories[p]
				if c == nil {
					c = &CIFCategory{}
					h.Categories[p] = c
				}
				if !c.loop() {
					c.Tags = append(c.Tags, string(tag[len(p):]))
					c.Values = append(c.Values, []CIFValue{cifValue(data, val{vsp.s, vsp.e, vk != tValue})})
				}
			}
		case tLoop:
			loopStart := int(sp.s)
			if h.Blocks == 0 {
				return nil, &syntaxError{loopStart, "loop_ before the first data_ block"}
			}
			loopTags = loopTags[:0]
			for {
				if k, sp, err = l.next(); err != nil {
					return nil, err
				}
				if k != tTag {
					break
				}
				if !inFrame {
					if err := b.newTag(sp); err != nil {
						return nil, err
					}
				}
				loopTags = append(loopTags, sp)
			}
			if len(loopTags) == 0 {
				return nil, &syntaxError{loopStart, "loop_ without tags"}
			}
			first := data[loopTags[0].s:loopTags[0].e]
			var t *table
			p := ""
			if inFirst && !inFrame {
				p = wantedPrefix(first, prefixes)
			}
			if c := h.Categories[p]; p != "" && (c == nil || !c.loop()) {
				loopVals = table{vals: loopVals.vals[:0]}
				t = &loopVals
			}
			ncol := len(loopTags)
			count := 0
			if k, sp, count, err = scanLoopValues(&l, k, sp, ncol, false, t, b); err != nil {
				return nil, err
			}
			if count%ncol != 0 {
				return nil, &syntaxError{loopStart, fmt.Sprintf("wrong number of values in the loop %s...: %d values for %d tags", first, count, ncol)}
			}
			if t != nil {
				h.Categories[p] = loopCategory(data, p, loopTags, t.vals)
			}
			pending, pk, psp = true, k, sp
		}
	}
}

// loop reports whether c came from a loop. A category read from pairs is
// replaced by the first loop of its prefix, and a loop category takes
// nothing more, as gemmi's find_mmcif_category returns the first loop it
// meets.
func (c *CIFCategory) loop() bool { return c != nil && c.isLoop }

// loopCategory turns a loop's tags and row-major values into columns.
func loopCategory(data []byte, prefix string, tags []span, vals []val) *CIFCategory {
	ncol := len(tags)
	rows := len(vals) / ncol
	c := &CIFCategory{isLoop: true, Tags: make([]string, ncol), Values: make([][]CIFValue, ncol)}
	for i, sp := range tags {
		tag := data[sp.s:sp.e]
		if len(tag) > len(prefix) {
			c.Tags[i] = string(tag[len(prefix):])
		}
		col := make([]CIFValue, rows)
		for r := 0; r < rows; r++ {
			col[r] = cifValue(data, vals[r*ncol+i])
		}
		c.Values[i] = col
	}
	return c
}
