package mmcif

import (
	"errors"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// CIFHeader is what ReadCategories reports of a document.
type CIFHeader struct {
	Blocks int // data blocks in the document
	// Categories are the requested categories of the first block that it
	// has, by prefix, as gemmi's find_mmcif_category finds them: the first
	// loop whose first tag has the prefix, or else every tag-value pair
	// with it, in file order (one row); names as written.
	Categories map[string]*Category
}

// ReadCategories reads an mmCIF document (plain or gzip, detected by the
// magic bytes) with exactly the syntax checks of Read (gemmi 0.5.7's
// grammar, duplicate tags and blocks, a multiple of the tag count in every
// loop) and returns the categories of its first data block named in
// prefixes (lower case with the trailing dot, "_refine."). No atom is
// built: the read is parse's in its headers-only mode (builder.hdr), in
// which the values of _atom_site and of every other loop not wanted are
// only counted, 32 bytes at a time where the bytes allow. Input that is not
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
	h := &CIFHeader{Categories: map[string]*Category{}}
	b.hdr = &headerRead{prefixes: prefixes, h: h}
	doc, err := parse(data, b)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			err = fmt.Errorf("line %d: %s", lineOf(data, se.off), se.msg)
		}
		return nil, derrors.Permanent(err)
	}
	h.Blocks = doc.nBlocks
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

// cifValue converts a value token to a Value.
func cifValue(data []byte, v val) Value {
	return Value{Text: string(data[v.s:v.e]), Quoted: v.q}
}

// headerRead is the state of a headers-only read (ReadCategories) that
// parse consults instead of building atoms: the wanted prefixes, the
// categories collected so far, and the loop being collected.
type headerRead struct {
	prefixes []string
	h        *CIFHeader
	loop     table  // the wanted loop's values while they are read
	loopCat  string // its prefix
}

// pair collects a tag-value pair of the first block into its category
// unless that category already came from a loop.
func (r *headerRead) pair(data, tag []byte, vsp span, vk tokKind) {
	p := wantedPrefix(tag, r.prefixes)
	if p == "" {
		return
	}
	c := r.h.Categories[p]
	if c == nil {
		c = &Category{}
		r.h.Categories[p] = c
	}
	if !c.loop() {
		c.Tags = append(c.Tags, string(tag[len(p):]))
		c.Values = append(c.Values, cifValue(data, val{vsp.s, vsp.e, vk != tValue}))
	}
}

// startLoop returns the table that collects the values of a first-block
// loop whose first tag is first, or nil when its category is not wanted
// or already came from an earlier loop (then the values are only counted).
func (r *headerRead) startLoop(first []byte) *table {
	p := wantedPrefix(first, r.prefixes)
	if c := r.h.Categories[p]; p == "" || c.loop() {
		return nil
	}
	r.loop = table{vals: r.loop.vals[:0]}
	r.loopCat = p
	return &r.loop
}

// endLoop stores the loop startLoop began, whose tags are tags.
func (r *headerRead) endLoop(data []byte, tags []span) {
	r.h.Categories[r.loopCat] = loopCategory(data, r.loopCat, tags, r.loop.vals)
}

// loop reports whether c came from a loop. A category read from pairs is
// replaced by the first loop of its prefix, and a loop category takes
// nothing more, as gemmi's find_mmcif_category returns the first loop it
// meets.
func (c *Category) loop() bool { return c != nil && c.isLoop }

// loopCategory turns a loop's tags and row-major values into a Category.
func loopCategory(data []byte, prefix string, tags []span, vals []val) *Category {
	ncol := len(tags)
	rows := len(vals) / ncol
	c := &Category{isLoop: true, Tags: make([]string, ncol), Values: make([]Value, rows*ncol)}
	for i, sp := range tags {
		if tag := data[sp.s:sp.e]; len(tag) > len(prefix) {
			c.Tags[i] = string(tag[len(prefix):])
		}
	}
	for i, v := range vals[:rows*ncol] {
		c.Values[i] = cifValue(data, v)
	}
	return c
}
