package mmcif

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// The PDB-format reader: gemmi 0.5.7's read_pdb_from_stream (pdb.hpp) as
// far as the structure model goes, then what read_structure
// (merge_chain_parts) and setup_entities do to it (pdbentity.go).

// pdbRes is one residue while a PDB file is read.
type pdbRes struct {
	r      structure.Residue // Atoms filled at the end
	seg    string            // segment id (columns 73-76), part of gemmi's ResidueId
	hasSeq bool
	het    byte // 'A' (ATOM) or 'H' (HETATM), gemmi's het_flag
	nAtoms int32
}

// pdbKey identifies a residue within a chain part as gemmi's resmap does
// (ResidueId: seq id with the insertion code compared without case,
// segment, name).
type pdbKey struct {
	seq    int
	hasSeq bool
	icode  byte
	seg    string
	name   string
}

type pdbPart struct {
	model int32
	name  string
	res   []int32
}

type pdbModel struct {
	num   int
	parts int // chain parts read into the model
}

// pdbReader holds one read's state; pooled between reads.
type pdbReader struct {
	atoms   []structure.Atom
	atomRes []int32
	res     []pdbRes
	parts   []pdbPart
	models  []pdbModel
	resmap  map[pdbKey]int32
	intern  map[string]string
	chains  [][]chainRec // per model, parts merged by name
	seen    map[chainKey]int
	order   []int32
	start   []int32
	fill    []int32
	spare   []structure.Atom

	buf       [121]byte         // gemmi's line buffer (see scan)
	bufAt     int               // data before this offset is in buf (the fast path fills buf lazily)
	names     map[uint32]string // atom names by their four columns
	nameCache [256]nameEntry    // a direct-mapped cache in front of names
	nameElems map[uint64]nameElem
	neCache   [256]nameElemEntry // a direct-mapped cache in front of nameElems

	noFast bool // read every line with the general code (tests)

	keyRes    [10]byte // columns 18-27 of the last atom line (residue key)
	keySeg    [4]byte  // and its columns 73-76 (keySegLen of them)
	keySegLen int
	keyOK     bool

	curModel, curPart, curRes int
	afterTer                  bool
	anisoSet                  bool // the last atom has a non-zero U11 (gemmi's duplicate-ANISOU check)
}

var pdbReaders = sync.Pool{New: func() any {
	return &pdbReader{resmap: map[pdbKey]int32{}, intern: map[string]string{}, seen: map[chainKey]int{}, names: map[uint32]string{},
		nameElems: map[uint64]nameElem{}}
}}

func (p *pdbReader) in(s []byte) string {
	if len(s) == 0 {
		return ""
	}
	v, ok := p.intern[string(s)]
	if !ok {
		v = string(s)
		p.intern[v] = v
	}
	return v
}

func (p *pdbReader) release() {
	p.atoms = nil
	p.atomRes, p.res, p.models = p.atomRes[:0], p.res[:0], p.models[:0]
	for i := range p.parts {
		p.parts[i].name = ""
	}
	p.parts = p.parts[:0]
	p.spare = p.spare[:0]
	clear(p.resmap)
	if len(p.intern) > maxInterned {
		p.intern = map[string]string{}
	}
	if len(p.names) > maxInterned {
		p.names = map[uint32]string{}
		p.nameCache = [256]nameEntry{}
	}
	if len(p.nameElems) > maxInterned {
		p.nameElems = map[uint64]nameElem{}
		p.neCache = [256]nameElemEntry{}
	}
	pdbReaders.Put(p)
}

type nameEntry struct {
	key  uint32
	name string
	ok   bool
}

// pdbLineError is an error at a line of a PDB file.
type pdbLineError struct {
	line int
	msg  string
}

func (e *pdbLineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

var (
	recATOM   = rec("ATOM")
	recHETATM = rec("HETA")
	recANISOU = rec("ANIS")
	recMODEL  = rec("MODE")
	recENDMDL = rec("ENDM")
	recTER    = rec("TER")
	recEND    = rec("END")
	recData   = rec("data")
	recJSON   = rec("{\"da")
)

// readPDB reads PDB-format data into st, reusing arr (see ReadInto);
// noFast reads every line with the general code (see pdbfast.go).
func readPDB(st *structure.Structure, data []byte, arr arrays, noFast bool) error {
	p := pdbReaders.Get().(*pdbReader)
	defer p.release()
	p.curModel, p.curPart, p.curRes = -1, -1, -1
	p.afterTer, p.anisoSet, p.keyOK = false, false, false
	p.buf, p.bufAt, p.noFast = [121]byte{}, 0, noFast
	p.atoms = arr.atoms[:0]
	if est := len(data)/81 + 16; cap(p.atoms) < est {
		p.atoms = make([]structure.Atom, 0, est)
	}
	if err := p.scan(data); err != nil {
		*st = structure.Structure{}
		return err
	}
	if len(p.models) == 0 {
		// gemmi: a file without atoms (a header) gets one empty model
		p.models = append(p.models, pdbModel{num: 1})
	}
	p.assemble(st, arr)
	return nil
}

// scan reads the lines of data (gemmi's main loop).
func (p *pdbReader) scan(data []byte) error {
	if k := bytes.IndexByte(data, 0); k >= 0 {
		return &pdbLineError{lineOf(data, k), "NUL byte in a PDB-format line"}
	}
	lineNum := 0
	for pos := 0; pos < len(data); {
		lineNum++
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			end += pos + 1 // the newline belongs to the line, as fgets keeps it
			next = end
		} else {
			end = len(data)
		}
		// gemmi reads at most 120 bytes of a line and skips the rest
		l := pdbLine(data[pos:min(end, pos+120)])
		pos = next
		// gemmi's line buffer: this line over the earlier ones, then NUL;
		// the few fields gemmi reads past a short line's end (MODEL's
		// number, ANISOU's U11) come from what earlier lines left there.
		// The fast path copies lines into it only when such a field is
		// read (lineBuf).
		if p.noFast {
			p.buf[copy(p.buf[:120], l)] = 0
		}
		var err error
		switch id := l.alpha4(); {
		case id == recATOM || id == recHETATM:
			if !p.noFast && len(l) > 80 {
				err = p.atomFast(l)
			} else {
				err = p.atom(l)
			}
		case id == recANISOU:
			err = p.aniso(p.lineBuf(data, l, next, 35))
		case id == recMODEL:
			err = p.model(p.lineBuf(data, l, next, 14))
		case id == recENDMDL:
			p.curModel, p.curPart = -1, -1
		case l.isRecord3(recTER):
			p.ter()
		case l.isRecord3(recEND):
			return nil
		case id == recData && l.at(4) == '_' && p.curModel < 0:
			err = fmt.Errorf("incorrect file format (perhaps it is cif not pdb?)")
		case id == recJSON && p.lineBuf(data, l, next, 7).alpha3(4) == alpha3("ta_") && p.curModel < 0:
			err = fmt.Errorf("incorrect file format (perhaps it is mmJSON not pdb?)")
		}
		if err != nil {
			if _, ok := err.(*pdbLineError); !ok {
				err = &pdbLineError{lineNum, err.Error()}
			}
			return err
		}
	}
	return nil
}

// atom reads an ATOM or HETATM record.
func (p *pdbReader) atom(l pdbLine) error {
	if len(l) < 55 {
		return fmt.Errorf("the line is too short to be correct: %q", bytes.TrimRight(l, "\r\n"))
	}
	// the residue of the previous atom line when the residue columns
	// (name, chain, number, insertion code, segment) are byte for byte
	// that line's: the common case, no parsing or lookup
	seg4 := l.field(72, 4)
	if p.keyOK && p.curPart >= 0 && p.curRes >= 0 && string(l[17:27]) == string(p.keyRes[:]) &&
		string(seg4) == string(p.keySeg[:p.keySegLen]) {
		return p.addAtom(l)
	}
	if err := p.residue(l); err != nil {
		return err
	}
	copy(p.keyRes[:], l[17:27])
	p.keySegLen = copy(p.keySeg[:], seg4)
	p.keyOK = true
	return p.addAtom(l)
}

// residue finds or starts the residue (and chain part, and model) of an
// atom line, as gemmi's reader does.
func (p *pdbReader) residue(l pdbLine) error {
	chainName := l.readString(20, 2)
	num, hasSeq, icode := l.readSeqID(22)
	resName := l.readString(17, 3)
	if p.curPart < 0 || string(chainName) != p.parts[p.curPart].name {
		if p.curModel < 0 {
			n := len(p.models) + 1
			if p.findModel(n) >= 0 {
				return fmt.Errorf("ATOM/HETATM between models")
			}
			p.models = append(p.models, pdbModel{num: n})
			p.curModel = len(p.models) - 1
		}
		name := p.in(chainName)
		p.afterTer = false
		for i := range p.parts {
			if q := &p.parts[i]; int(q.model) == p.curModel && q.name == name {
				p.afterTer = p.res[q.res[0]].r.Entity == structure.EntityPolymer
				break
			}
		}
		p.newPart(pdbPart{model: int32(p.curModel), name: name})
		p.curPart = len(p.parts) - 1
		p.models[p.curModel].parts++
		clear(p.resmap)
		p.curRes = -1
	}
	var seg []byte
	if len(l) > 72 {
		seg = l.readString(72, 4)
	}
	if p.curRes < 0 || !p.matches(p.curRes, num, hasSeq, icode, seg, resName) {
		k := pdbKey{num, hasSeq, icode | 0x20, p.in(seg), p.in(resName)}
		ri, ok := p.resmap[k]
		if !ok {
			ri = int32(len(p.res))
			p.resmap[k] = ri
			r := pdbRes{seg: k.seg, hasSeq: hasSeq, het: l[0] &^ 0x20}
			r.r.Name, r.r.AuthSeq, r.r.ICode = k.name, num, icode
			if p.afterTer {
				r.r.Entity = structure.EntityNonPolymer
				if isWaterName(k.name) {
					r.r.Entity = structure.EntityWater
				}
			}
			p.res = append(p.res, r)
			part := &p.parts[p.curPart]
			part.res = append(part.res, ri)
		}
		p.curRes = int(ri)
	}
	return nil
}

// addAtom adds the atom of a line to the current residue.
func (p *pdbReader) addAtom(l pdbLine) error {
	a := structure.Atom{
		Name:    p.atomName(l),
		Element: atomElement(l),
		X:       l.double(30, 8),
		Y:       l.double(38, 8),
		Z:       l.double(46, 8),
		Occ:     1,
		B:       20,
	}
	if c := l[16]; c != ' ' {
		a.AltLoc = c
	}
	if len(l) > 58 {
		a.Occ = float32(l.double(54, 6))
	}
	if len(l) > 64 {
		a.B = float32(l.double(60, 6))
	}
	if len(l) > 78 && !readCharge(l.at(78), l.at(79)) {
		return errCharge(l.at(78), l.at(79))
	}
	p.atoms = append(p.atoms, a)
	p.atomRes = append(p.atomRes, int32(p.curRes))
	p.res[p.curRes].nAtoms++
	p.anisoSet = false
	return nil
}

// errCharge is gemmi's error for a charge field it cannot read.
func errCharge(c0, c1 byte) error {
	return fmt.Errorf("wrong format for charge: %q", []byte{c0, c1})
}

// atomName is the atom name (columns 13-16, trimmed), interned by the
// columns' four bytes.
func (p *pdbReader) atomName(l pdbLine) string {
	k := uint32(l[12])<<24 | uint32(l[13])<<16 | uint32(l[14])<<8 | uint32(l[15])
	h := (k * 0x9e3779b1) >> (32 - 8)
	if c := &p.nameCache[h]; c.ok && c.key == k {
		return c.name
	}
	n, ok := p.names[k]
	if !ok {
		n = p.in(l.readString(12, 4))
		p.names[k] = n
	}
	p.nameCache[h] = nameEntry{k, n, true}
	return n
}

// matches is gemmi's ResidueId::matches between residue ri and a record.
func (p *pdbReader) matches(ri int, num int, hasSeq bool, icode byte, seg, name []byte) bool {
	r := &p.res[ri]
	return r.hasSeq == hasSeq && (!hasSeq || r.r.AuthSeq == num) && r.r.ICode|0x20 == icode|0x20 &&
		r.seg == string(seg) && r.r.Name == string(name)
}

func (p *pdbReader) newPart(q pdbPart) {
	if len(p.parts) < cap(p.parts) {
		q.res = p.parts[:len(p.parts)+1][len(p.parts)].res[:0]
	}
	p.parts = append(p.parts, q)
}

func (p *pdbReader) findModel(num int) int {
	for i := range p.models {
		if p.models[i].num == num {
			return i
		}
	}
	return -1
}

// aniso checks an ANISOU record as gemmi does (its values are not kept).
func (p *pdbReader) aniso(l pdbLine) error {
	if p.curModel < 0 || p.curPart < 0 || p.curRes < 0 || p.res[p.curRes].nAtoms == 0 {
		return fmt.Errorf("ANISOU record not directly after ATOM/HETATM")
	}
	if p.anisoSet {
		return fmt.Errorf("duplicated ANISOU record or not directly after ATOM/HETATM")
	}
	p.anisoSet = l.readInt(28, 7) != 0
	return nil
}

// model reads a MODEL record.
func (p *pdbReader) model(l pdbLine) error {
	if p.curModel >= 0 && p.curPart >= 0 {
		return fmt.Errorf("MODEL without ENDMDL?")
	}
	num := l.readInt(10, 4)
	mi := p.findModel(num)
	if mi < 0 {
		p.models = append(p.models, pdbModel{num: num})
		mi = len(p.models) - 1
	}
	if p.models[mi].parts > 0 {
		return fmt.Errorf("duplicate MODEL number: %s", strconv.Itoa(num))
	}
	p.curModel, p.curPart = mi, -1
	return nil
}

// ter is a TER record: it ends the polymer of the current chain part
// (every residue read so far in the part is a polymer residue; later
// residues of the part, and of later parts of the chain, are not).
func (p *pdbReader) ter() {
	if p.curPart < 0 || p.afterTer {
		return
	}
	for _, ri := range p.parts[p.curPart].res {
		p.res[ri].r.Entity = structure.EntityPolymer
	}
	p.afterTer = true
}
