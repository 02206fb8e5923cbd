package mmcif

import (
	"bytes"
	"math"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// _atom_site columns the builder reads.
const (
	cID = iota
	cTypeSymbol
	cLabelAtomID
	cLabelAltID
	cLabelCompID
	cLabelAsymID
	cLabelEntityID
	cLabelSeqID
	cInsCode
	cX
	cY
	cZ
	cOcc
	cBiso
	cAuthSeqID
	cAuthCompID
	cAuthAsymID
	cAuthAtomID
	cModelNum
	nCols
)

var colNames = [nCols]string{
	cID: "id", cTypeSymbol: "type_symbol", cLabelAtomID: "label_atom_id",
	cLabelAltID: "label_alt_id", cLabelCompID: "label_comp_id",
	cLabelAsymID: "label_asym_id", cLabelEntityID: "label_entity_id",
	cLabelSeqID: "label_seq_id", cInsCode: "pdbx_pdb_ins_code",
	cX: "cartn_x", cY: "cartn_y", cZ: "cartn_z", cOcc: "occupancy",
	cBiso: "b_iso_or_equiv", cAuthSeqID: "auth_seq_id",
	cAuthCompID: "auth_comp_id", cAuthAsymID: "auth_asym_id",
	cAuthAtomID: "auth_atom_id", cModelNum: "pdbx_pdb_model_num",
}

// required columns: without any of them gemmi 0.5.7 reads no atoms at all
// (and no error), so we do the same.
var requiredCols = []int{cID, cTypeSymbol, cLabelAltID, cLabelAsymID, cX, cY, cZ, cOcc, cBiso, cAuthSeqID}

// defaultModel is the model name gemmi uses without pdbx_PDB_model_num.
var defaultModel = []byte("1")

type resRec struct {
	r      structure.Residue // Atoms filled at the end
	part   int32
	nAtoms int32
	hasSeq bool
}

type partRec struct {
	model  int32
	name   string
	res    []int32
	maxSeq int
	idx    map[resKey]int32 // built only for long parts with out-of-order residues
}

// resKey identifies a residue within a chain part, as gemmi matches them
// (SeqId's operator==: the insertion code without case, icode|0x20, where
// no code is ' ' in gemmi and 0 here, the same after |0x20).
type resKey struct {
	seq    int
	hasSeq bool
	icode  byte
	name   string
}

func (b *builder) keyOf(ri int) resKey {
	r := &b.res[ri]
	return resKey{r.r.AuthSeq, r.hasSeq, r.r.ICode | 0x20, r.r.Name}
}

type modelRec struct {
	name []byte
	num  int
}

// builder turns _atom_site rows into the structure as gemmi 0.5.7's
// make_structure_from_block + read_structure do.
type builder struct {
	data   []byte
	cols   [nCols]int // file column of each field, -1 when absent
	colOf  []int8     // field of each file column, -1 when unused
	fields [nCols]val // the current row's values, by field
	ok     bool       // the current loop has every required column

	atoms   []structure.Atom
	atomRes []int32
	res     []resRec
	parts   []partRec
	models  []modelRec

	curModel, curPart, curRes int
	modelIdx                  map[string]int // model name -> index in models
	intern                    map[string]string
	cache                     [512]string

	order, start, fill []int32           // assemble's scratch
	chainsOf           [][]chainRec      // assemble's chains per model
	seen               map[chainKey]int  // assemble's chain index by name
	spare              []structure.Atom  // assemble's copy for reordering atoms
	entTypes           map[string]entRec // assignEntities' scratch: _entity rows by id
	subEntity          map[string]entRec // assignEntities' scratch: _entity row of each subchain
	doc                document          // parse's result
	loopTags           []span            // parse's scratch
	seenTags           tagSet            // parse: the current block's tags
	seenFrames         map[string]bool   // parse: the current block's save_ frames
	seenBlocks         map[string]bool   // parse: the block names so far
	names              []string          // the _atom_site loop's column names
	ext                *entryTables      // ReadEntry's extra categories (entry.go); nil otherwise
	hdr                *headerRead       // a headers-only read (ReadCategories, header.go); nil otherwise

	fast fastState // the line fast path's state (fastrow.go)

	blockValues int  // values counted 32 bytes at a time (never reset; tests read it)
	noFast      bool // read every value with the general tokenizer (tests)
}

// builders keeps builders between reads: their scratch slices and name
// tables are reused, so that a read allocates little besides its result.
var builders = sync.Pool{New: func() any { return &builder{intern: make(map[string]string, 64)} }}

// maxInterned bounds the names a pooled builder keeps between reads.
const maxInterned = 1 << 12

// getBuilder returns an empty builder for data (from the pool).
func getBuilder(data []byte) *builder {
	b := builders.Get().(*builder)
	b.data = data
	b.curModel, b.curPart, b.curRes = -1, -1, -1
	return b
}

// release returns b to the pool. The result's atoms, residues and names
// stay with the result: names are interned strings, immutable and shared.
// The scratch slices and maps stay with b; none of them refers to the
// result's arrays.
func (b *builder) release() {
	b.data, b.atoms = nil, nil
	b.atomRes = b.atomRes[:0]
	b.res = b.res[:0]
	for i := range b.parts {
		b.parts[i].idx, b.parts[i].name = nil, ""
	}
	b.parts = b.parts[:0]
	for i := range b.models {
		b.models[i].name = nil
	}
	b.models = b.models[:0]
	clear(b.modelIdx)
	if len(b.intern) > maxInterned {
		b.intern = make(map[string]string, 64)
	}
	b.noFast, b.ext, b.hdr = false, nil, nil
	b.fast.keyValid = false
	b.doc.name = ""
	builders.Put(b)
}

// reserveAtoms sizes the atom arrays for an _atom_site loop whose first
// value is at data[from], guessing one row per line as long as the first
// one (at least 40 bytes) up to the end of the input.
// b.atoms may start as the caller's array from an earlier read (ReadInto);
// it is replaced only when smaller than the guess.
func (b *builder) reserveAtoms(from int) {
	if len(b.atoms) > 0 || from >= len(b.data) {
		return
	}
	rest := len(b.data) - from
	line := bytes.IndexByte(b.data[from:], '\n') + 1
	if line <= 0 {
		line = rest
	}
	est := rest/max(line, 40) + 16
	if cap(b.atoms) < est {
		b.atoms = make([]structure.Atom, 0, est)
	}
	if cap(b.atomRes) < est {
		b.atomRes = make([]int32, 0, est)
	}
}

// newPart starts a chain part, reusing the residue list of a released one.
func (b *builder) newPart(p partRec) {
	if len(b.parts) < cap(b.parts) {
		p.res = b.parts[:len(b.parts)+1][len(b.parts)].res[:0]
	}
	b.parts = append(b.parts, p)
}

func (b *builder) startAtoms(names []string) {
	for i := range b.cols {
		b.cols[i] = -1
	}
	b.colOf = b.colOf[:0]
	for i, n := range names {
		f := int8(-1)
		for c, cn := range colNames {
			if n == cn && b.cols[c] < 0 {
				b.cols[c] = i
				f = int8(c)
			}
		}
		b.colOf = append(b.colOf, f)
	}
	b.ok = true
	for _, c := range requiredCols {
		if b.cols[c] < 0 {
			b.ok = false
		}
	}
	if b.cols[cLabelCompID] < 0 && b.cols[cAuthCompID] < 0 || b.cols[cLabelAtomID] < 0 && b.cols[cAuthAtomID] < 0 {
		b.ok = false
	}
	b.curModel, b.curPart, b.curRes = -1, -1, -1
	b.startFast()
}

func (b *builder) endAtoms() {
	b.curModel, b.curPart, b.curRes = -1, -1, -1
	b.fast.keyValid = false
}

// setRow copies a row given in file column order into b.fields.
func (b *builder) setRow(row []val) {
	for i, f := range b.colOf {
		if f >= 0 && i < len(row) {
			b.fields[f] = row[i]
		}
	}
}

// raw returns the bytes of column c of the current row (b.fields), or nil
// when the column is absent.
func (b *builder) raw(c int) ([]byte, bool) {
	if b.cols[c] < 0 {
		return nil, false
	}
	v := b.fields[c]
	return b.data[v.s:v.e], v.q
}

// req returns the bytes of column c, which startAtoms has checked is present.
func (b *builder) req(c int) []byte {
	v := b.fields[c]
	return b.data[v.s:v.e]
}

// str returns column c as gemmi's cif::as_string does: "" for an absent
// column or an unquoted '.' or '?'.
func (b *builder) str(c int) []byte {
	s, q := b.raw(c)
	if !q && len(s) == 1 && (s[0] == '.' || s[0] == '?') {
		return nil
	}
	return s
}

// in interns s: a direct-mapped cache in front of a map, so that the
// common case (an atom or element name seen a moment ago) costs a hash of
// three bytes and one comparison, and each distinct name is allocated once.
func (b *builder) in(s []byte) string {
	if len(s) == 0 {
		return ""
	}
	h := (uint(len(s))*131 + uint(s[0])*31 + uint(s[len(s)-1])*7 + uint(s[len(s)/2])) & uint(len(b.cache)-1)
	if c := b.cache[h]; c == string(s) {
		return c
	}
	v, ok := b.intern[string(s)]
	if !ok {
		v = string(s)
		b.intern[v] = v
	}
	b.cache[h] = v
	return v
}

func (b *builder) inUpper(s []byte) string {
	for _, c := range s {
		if 'a' <= c && c <= 'z' {
			var buf [8]byte
			u := buf[:0]
			if len(s) > len(buf) {
				u = make([]byte, 0, len(s))
			}
			for _, c := range s {
				if 'a' <= c && c <= 'z' {
					c -= 'a' - 'A'
				}
				u = append(u, c)
			}
			return b.in(u)
		}
	}
	return b.in(s)
}

// atomRow adds the atom of the current row (b.fields).
func (b *builder) atomRow() {
	if !b.ok {
		return
	}
	b.fast.keyValid = false // the fast path's residue key is not this row's
	ri := b.residue()
	// atom
	// gemmi 0.5.7 reads auth_atom_id when the column exists
	// (first_of(kAuthAtomId, kLabelAtomId)), label_atom_id otherwise.
	aname := b.str(cAuthAtomID)
	if b.cols[cAuthAtomID] < 0 {
		aname = b.str(cLabelAtomID)
	}
	var alt byte
	if s := b.str(cLabelAltID); len(s) > 0 {
		alt = s[0]
	}
	x, y, z := b.req(cX), b.req(cY), b.req(cZ)
	occ, bf := 1.0, 50.0 // gemmi's values for '?' and '.'
	if v := b.str(cOcc); v != nil {
		occ = parseFloat(v)
	}
	if v := b.str(cBiso); v != nil {
		bf = parseFloat(v)
	}
	b.atoms = append(b.atoms, structure.Atom{
		Name:    b.in(aname),
		Element: b.inUpper(b.str(cTypeSymbol)),
		AltLoc:  alt,
		Occ:     float32(occ),
		B:       float32(bf),
		X:       parseFloat(x),
		Y:       parseFloat(y),
		Z:       parseFloat(z),
	})
	b.atomRes = append(b.atomRes, int32(ri))
	b.res[ri].nAtoms++
}

// residue finds or starts the model, chain part and residue of the current
// row (b.fields), as gemmi does, and returns the residue's index.
func (b *builder) residue() int {
	// model
	mname := defaultModel
	// gemmi compares the row's raw model token (quotes included) with the
	// current model's name (as_string: unquoted, "" for '?' and '.'), so
	// a quoted or null model number starts a new chain part on every row
	// (and so a new residue for every atom).
	rawDiffers := false
	if s, q := b.raw(cModelNum); s != nil {
		mname = s
		if !q && len(s) == 1 && (s[0] == '?' || s[0] == '.') {
			mname, rawDiffers = s[:0], true
		}
		rawDiffers = rawDiffers || q
	}
	if rawDiffers {
		b.fast.keyValid = false // the fast paths must not reuse this residue
	}
	if b.curModel < 0 || rawDiffers || !bytes.Equal(b.models[b.curModel].name, mname) {
		if mi, ok := b.modelIdx[string(mname)]; ok {
			b.curModel = mi
		} else {
			n, _ := parseInt(mname)
			b.models = append(b.models, modelRec{name: mname, num: n})
			b.curModel = len(b.models) - 1
			if b.modelIdx == nil {
				b.modelIdx = map[string]int{}
			}
			b.modelIdx[b.in(mname)] = b.curModel
		}
		b.curPart, b.curRes = -1, -1
	}
	// chain part
	cname := b.str(cAuthAsymID)
	if b.cols[cAuthAsymID] < 0 {
		cname = b.str(cLabelAsymID)
	}
	if b.curPart < 0 || b.parts[b.curPart].name != string(cname) {
		b.newPart(partRec{model: int32(b.curModel), name: b.in(cname), maxSeq: math.MinInt})
		b.curPart = len(b.parts) - 1
		b.curRes = -1
	}
	// residue
	// gemmi 0.5.7 reads auth_comp_id when the column exists
	// (first_of(kAuthCompId, kLabelCompId)), label_comp_id otherwise.
	comp := b.str(cAuthCompID)
	if b.cols[cAuthCompID] < 0 {
		comp = b.str(cLabelCompID)
	}
	seqTxt := b.str(cAuthSeqID)
	seq, hasSeq := parseInt(seqTxt)
	var icode byte
	if s := b.str(cInsCode); len(s) > 0 {
		icode = s[0]
	} else if !hasSeq && len(seqTxt) > 1 {
		// gemmi reads "12A" as number 12, insertion code A
		if n, ok := parseInt(seqTxt[:len(seqTxt)-1]); ok {
			seq, hasSeq, icode = n, true, seqTxt[len(seqTxt)-1]
		}
	}
	if icode == ' ' {
		icode = 0 // a quoted blank: gemmi's "no insertion code"
	}
	if b.curRes >= 0 && b.match(b.curRes, seq, hasSeq, icode, comp) {
		return b.curRes
	}
	ri := -1
	p := &b.parts[b.curPart]
	if !hasSeq || seq <= p.maxSeq {
		if p.idx == nil && len(p.res) > 32 {
			// out-of-order residues in a long part: index them so
			// that pathological files stay linear
			p.idx = make(map[resKey]int32, len(p.res))
			for _, r := range p.res {
				p.idx[b.keyOf(int(r))] = r
			}
		}
		if p.idx != nil {
			if r, ok := p.idx[resKey{seq, hasSeq, icode | 0x20, string(comp)}]; ok {
				ri = int(r)
			}
		} else {
			for k := len(p.res) - 1; k >= 0; k-- {
				if b.match(int(p.res[k]), seq, hasSeq, icode, comp) {
					ri = int(p.res[k])
					break
				}
			}
		}
	}
	if ri < 0 {
		if hasSeq && seq > p.maxSeq {
			p.maxSeq = seq
		}
		lseq, _ := parseInt(b.str(cLabelSeqID))
		b.res = append(b.res, resRec{
			r: structure.Residue{
				Name:     b.in(comp),
				LabelSeq: lseq,
				AuthSeq:  seq,
				ICode:    icode,
				Subchain: b.in(b.str(cLabelAsymID)),
				EntityID: b.in(b.str(cLabelEntityID)),
			},
			part:   int32(b.curPart),
			hasSeq: hasSeq,
		})
		ri = len(b.res) - 1
		p.res = append(p.res, int32(ri))
		if p.idx != nil {
			p.idx[b.keyOf(ri)] = int32(ri)
		}
	}
	b.curRes = ri
	return ri
}

func (b *builder) match(ri int, seq int, hasSeq bool, icode byte, comp []byte) bool {
	r := &b.res[ri]
	return r.hasSeq == hasSeq && (!hasSeq || r.r.AuthSeq == seq) && r.r.ICode|0x20 == icode|0x20 && r.r.Name == string(comp)
}
