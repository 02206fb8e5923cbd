package confind

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// CompactName is the compact form of a library, beside EBL.out and
// BEBL.out in the library's folder: the parsed library in a binary
// encoding that loads without parsing text (WriteCompact writes it).
//
// Layout (little-endian), a 136-byte header then the payload:
//
//	[0:8]     magic "FCROTLIB"
//	[8:12]    version, uint32 (compactVersion)
//	[12:16]   header length, uint32 (136)
//	[16:24]   size of the EBL.out it was made from, uint64
//	[24:56]   sha256 of that EBL.out
//	[56:64]   size of the BEBL.out, uint64
//	[64:96]   sha256 of that BEBL.out
//	[96:104]  payload length, uint64
//	[104:136] sha256 of the payload
//
// The payload is the library as parsed: its name, the bin widths, the
// residue templates sorted by name (atoms, parents, weights, placement
// coefficients as float64 bits, so the loaded library is bit for bit the
// one the text parse gives) and the BEBL bins sorted by residue and bin.
// Fields derived from the atoms (parent references, tested atoms) are
// recomputed on load, and every index is checked as the text parse checks it.
const CompactName = "rotlib.fcbin"

const (
	compactMagic   = "FCROTLIB"
	compactVersion = 1
	compactHeader  = 136
)

// TextSum is the size and sha256 of one library text file.
type TextSum struct {
	Size   int64
	SHA256 [32]byte
}

// compactHeaderOf is a compact file's header.
type compactHeaderOf struct {
	ebl, bebl  TextSum
	payloadLen uint64
	payloadSum [32]byte
}

// WriteCompact parses dir/EBL.out and dir/BEBL.out (never an existing
// compact file) and writes dir/rotlib.fcbin atomically (a temporary file
// renamed over it), recording both texts' sizes and sha256. It returns the
// library written and the compact file's path. Errors are LoadLibrary's.
func WriteCompact(dir string) (*Library, string, error) {
	eblPath, beblPath := filepath.Join(dir, "EBL.out"), filepath.Join(dir, "BEBL.out")
	ebl, err := os.Open(eblPath)
	if err != nil {
		return nil, "", derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
	}
	defer ebl.Close()
	bebl, err := os.Open(beblPath)
	if err != nil {
		return nil, "", derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
	}
	defer bebl.Close()
	eh, bh := &countHash{Hash: sha256.New()}, &countHash{Hash: sha256.New()}
	lib, err := ReadLibrary(io.TeeReader(ebl, eh), eblPath, io.TeeReader(bebl, bh), beblPath)
	if err != nil {
		return nil, "", err
	}
	lib.Dir = dir
	out := filepath.Join(dir, CompactName)
	tmp, err := os.CreateTemp(dir, CompactName+".tmp*")
	if err != nil {
		return nil, "", err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return nil, "", err
	}
	if err := EncodeCompact(tmp, lib, eh.sum(), bh.sum()); err != nil {
		tmp.Close()
		return nil, "", fmt.Errorf("writing %s: %w", out, err)
	}
	if err := tmp.Close(); err != nil {
		return nil, "", fmt.Errorf("writing %s: %w", out, err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, "", err
	}
	return lib, out, nil
}

// countHash is a hash that counts the bytes written to it.
type countHash struct {
	hash.Hash
	n int64
}

func (c *countHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.Hash.Write(p)
}

func (c *countHash) sum() TextSum {
	var s TextSum
	s.Size = c.n
	copy(s.SHA256[:], c.Hash.Sum(nil))
	return s
}

// EncodeCompact writes lib's compact form (CompactName) to w, recording ebl
// and bebl as the texts it came from. w is written from its start: the
// header, whose payload checksum is known last, is written through WriteAt.
func EncodeCompact(w interface {
	io.Writer
	io.WriterAt
}, lib *Library, ebl, bebl TextSum) error {
	if _, err := w.Write(make([]byte, compactHeader)); err != nil {
		return err
	}
	h := sha256.New()
	e := &encoder{w: bufio.NewWriterSize(io.MultiWriter(w, h), 1<<20)}
	e.payload(lib)
	if e.err == nil {
		e.err = e.w.Flush()
	}
	if e.err != nil {
		return e.err
	}
	hd := compactHeaderOf{ebl: ebl, bebl: bebl, payloadLen: uint64(e.n)}
	copy(hd.payloadSum[:], h.Sum(nil))
	_, err := w.WriteAt(hd.bytes(), 0)
	return err
}

func (h *compactHeaderOf) bytes() []byte {
	b := make([]byte, 0, compactHeader)
	b = append(b, compactMagic...)
	b = binary.LittleEndian.AppendUint32(b, compactVersion)
	b = binary.LittleEndian.AppendUint32(b, compactHeader)
	for _, s := range []TextSum{h.ebl, h.bebl} {
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Size))
		b = append(b, s.SHA256[:]...)
	}
	b = binary.LittleEndian.AppendUint64(b, h.payloadLen)
	return append(b, h.payloadSum[:]...)
}

// encoder writes the payload; it keeps the first error.
type encoder struct {
	w   *bufio.Writer
	n   int64
	err error
	buf [8]byte
}

func (e *encoder) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
		e.n += int64(len(b))
	}
}

func (e *encoder) u32(v uint32) { e.bytes(binary.LittleEndian.AppendUint32(e.buf[:0], v)) }
func (e *encoder) u64(v uint64) { e.bytes(binary.LittleEndian.AppendUint64(e.buf[:0], v)) }
func (e *encoder) i32(v int32)  { e.u32(uint32(v)) }
func (e *encoder) f64(v float64) {
	e.u64(math.Float64bits(v))
}

func (e *encoder) str(s string) {
	e.u32(uint32(len(s)))
	e.bytes([]byte(s))
}

func (e *encoder) payload(lib *Library) {
	e.str(lib.Name)
	e.f64(lib.phiBin)
	e.f64(lib.psiBin)
	e.u64(uint64(lib.ConfRows))
	names := sortedKeys(lib.ebl)
	e.u32(uint32(len(names)))
	for _, n := range names {
		t := lib.ebl[n]
		e.str(t.name)
		e.u32(uint32(len(t.atoms)))
		for k, a := range t.atoms {
			e.str(a)
			for _, p := range t.parents[k] {
				e.str(p)
			}
		}
		e.u64(uint64(t.rows))
		for _, w := range t.weights {
			e.f64(w)
		}
		for k := range t.atoms {
			for _, c := range t.constCoef[k] {
				e.f64(c)
			}
			e.i32(int32(t.varIdx[k]))
		}
		e.u32(uint32(t.nVar))
		for _, c := range t.varCoef {
			e.f64(c)
		}
	}
	names = sortedKeys(lib.bebl)
	e.u32(uint32(len(names)))
	for _, n := range names {
		b := lib.bebl[n]
		e.str(n)
		if b.hasWild {
			e.u32(1)
			e.idx(b.wildcard)
		} else {
			e.u32(0)
		}
		keys := make([][2]int32, 0, len(b.bins))
		for k := range b.bins {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b [2]int32) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
		e.u32(uint32(len(keys)))
		for _, k := range keys {
			e.i32(k[0])
			e.i32(k[1])
			e.idx(b.bins[k])
		}
	}
}

func (e *encoder) idx(v []int32) {
	e.u32(uint32(len(v)))
	for _, x := range v {
		e.i32(x)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}

// errCompact is a compact file that cannot be used: permanent, wrapping
// ErrLibrary, naming the file.
func errCompact(name string, format string, args ...any) error {
	return derrors.Permanent(fmt.Errorf("%w: %s: %s", ErrLibrary, name, fmt.Sprintf(format, args...)))
}

// readCompactHeader reads and checks the header; size is the file's size,
// or -1 when unknown.
func readCompactHeader(r io.Reader, name string, size int64) (*compactHeaderOf, error) {
	b := make([]byte, compactHeader)
	if n, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errCompact(name, "truncated: %d bytes, shorter than the %d-byte header", n, compactHeader)
		}
		return nil, err
	}
	if string(b[:8]) != compactMagic {
		return nil, errCompact(name, "not a compact rotamer library (magic %q, want %q)", b[:8], compactMagic)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != compactVersion {
		return nil, errCompact(name, "compact library version %d; this build reads version %d (rewrite it with `foldcorpus confind --compact --rotlib DIR`)", v, compactVersion)
	}
	if n := binary.LittleEndian.Uint32(b[12:]); n != compactHeader {
		return nil, errCompact(name, "header length %d, want %d", n, compactHeader)
	}
	h := &compactHeaderOf{}
	for i, s := range []*TextSum{&h.ebl, &h.bebl} {
		o := 16 + i*40
		s.Size = int64(binary.LittleEndian.Uint64(b[o:]))
		copy(s.SHA256[:], b[o+8:o+40])
	}
	h.payloadLen = binary.LittleEndian.Uint64(b[96:])
	copy(h.payloadSum[:], b[104:136])
	if size >= 0 && uint64(size) != compactHeader+h.payloadLen {
		return nil, errCompact(name, "%d bytes, the header says %d: truncated or extended", size, compactHeader+h.payloadLen)
	}
	return h, nil
}

// readCompact reads a whole compact file from r (size bytes, or -1 when
// unknown): the header, then the payload, streamed and hashed as it is
// decoded. A wrong magic, version, length or payload sha256, or a payload
// that does not decode to a consistent library, is an error naming the file;
// a read error other than EOF is returned as it is (the caller classifies it).
func readCompact(r io.Reader, name string, size int64) (*Library, *compactHeaderOf, error) {
	h, err := readCompactHeader(r, name, size)
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.New()
	lr := &io.LimitedReader{R: r, N: int64(h.payloadLen)}
	d := &decoder{r: bufio.NewReaderSize(io.TeeReader(lr, sum), 1<<20), left: int64(h.payloadLen), name: name}
	lib := d.payload()
	if d.err == nil && d.left != 0 {
		d.fail("%d payload bytes after the library", d.left)
	}
	if d.read != nil {
		return nil, nil, d.read
	}
	if d.err != nil {
		// a payload that does not decode is most likely corrupt: say so
		// when its checksum disagrees
		if _, err := io.Copy(io.Discard, d.r); err != nil {
			return nil, nil, err
		}
	}
	if got := sum.Sum(nil); !bytes.Equal(got, h.payloadSum[:]) {
		return nil, nil, errCompact(name, "payload sha256 %x, the header says %x: the file is corrupt", got, h.payloadSum)
	}
	if d.err != nil {
		return nil, nil, d.err
	}
	return lib, h, nil
}

// decoder reads the payload; it keeps the first error. left counts the
// payload bytes not yet read, so no count can make it allocate more than
// the file holds.
type decoder struct {
	r    *bufio.Reader
	left int64
	name string
	err  error // the first error, a corrupt file unless read is set
	read error // a read error of the underlying reader
	buf  []byte
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = errCompact(d.name, format, args...)
	}
}

// next returns the next n bytes (valid until the next call), or nil after
// an error.
func (d *decoder) next(n int) []byte {
	if d.err != nil {
		return nil
	}
	if int64(n) > d.left {
		d.fail("truncated payload: wants %d more bytes, %d left", n, d.left)
		return nil
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			d.fail("truncated payload")
		} else {
			d.fail("%v", err)
			d.read = err
		}
		return nil
	}
	d.left -= int64(n)
	return b
}

func (d *decoder) u32() uint32 {
	if b := d.next(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.next(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *decoder) str() string {
	n := d.u32()
	if b := d.next(int(n)); b != nil {
		return string(b)
	}
	return ""
}

// count reads a count of elements of size bytes each, refusing one the
// rest of the payload cannot hold.
func (d *decoder) count(size int64, what string) int {
	n := d.u32()
	if d.err == nil && int64(n)*size > d.left {
		d.fail("%s count %d exceeds the payload", what, n)
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

// f64s fills dst with float64 bits, in chunks.
func (d *decoder) f64s(dst []float64) {
	for len(dst) > 0 && d.err == nil {
		n := min(len(dst), 1<<13)
		b := d.next(8 * n)
		if b == nil {
			return
		}
		for i := range dst[:n] {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		dst = dst[n:]
	}
}

// idx reads a list of row indices.
func (d *decoder) idx() []int32 {
	n := d.count(4, "index")
	if d.err != nil {
		return nil
	}
	v := make([]int32, n)
	b := d.next(4 * n)
	for i := range v {
		if b != nil {
			v[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return v
}

func (d *decoder) payload() *Library {
	lib := &Library{ebl: map[string]*template{}, bebl: map[string]*binTable{}}
	lib.Name = d.str()
	lib.phiBin, lib.psiBin = d.f64(), d.f64()
	if d.err == nil && !(lib.phiBin > 0 && lib.psiBin > 0) {
		d.fail("bin widths %v, %v are not positive", lib.phiBin, lib.psiBin)
	}
	confRows := d.u64()
	nt := d.count(1, "residue")
	for range nt {
		t := d.template()
		if d.err != nil {
			return nil
		}
		if _, dup := lib.ebl[t.name]; dup {
			d.fail("residue %s defined twice", t.name)
			return nil
		}
		lib.ebl[t.name] = t
		lib.ConfRows += t.rows
	}
	if d.err == nil && (len(lib.ebl) == 0 || uint64(lib.ConfRows) != confRows) {
		d.fail("%d residues of %d CONF rows, the payload says %d rows", len(lib.ebl), lib.ConfRows, confRows)
	}
	nb := d.count(1, "BEBL residue")
	for range nb {
		name := d.str()
		b := &binTable{bins: map[[2]int32][]int32{}}
		t := lib.ebl[name]
		check := func(idx []int32) {
			for _, v := range idx {
				if v < 0 || t != nil && int(v) >= t.rows {
					d.fail("BEBL %s: index %d out of range", name, v)
				}
			}
			if t != nil && len(idx) > len(t.weights) {
				d.fail("BEBL %s: bin of %d rotamers but %d weights", name, len(idx), len(t.weights))
			}
		}
		switch d.u32() {
		case 0:
		case 1:
			b.wildcard, b.hasWild = d.idx(), true
			check(b.wildcard)
		default:
			d.fail("BEBL %s: bad wildcard flag", name)
		}
		nbin := d.count(12, "bin")
		for range nbin {
			k := [2]int32{int32(d.u32()), int32(d.u32())}
			idx := d.idx()
			check(idx)
			if _, dup := b.bins[k]; dup {
				d.fail("BEBL %s: bin %v twice", name, k)
			}
			b.bins[k] = idx
		}
		if d.err != nil {
			return nil
		}
		if _, dup := lib.bebl[name]; dup {
			d.fail("BEBL residue %s defined twice", name)
			return nil
		}
		lib.bebl[name] = b
	}
	if d.err != nil {
		return nil
	}
	return lib
}

func (d *decoder) template() *template {
	t := &template{name: d.str()}
	m := d.count(16, "atom")
	if d.err != nil {
		return nil
	}
	for range m {
		t.atoms = append(t.atoms, d.str())
		t.parents = append(t.parents, [3]string{d.str(), d.str(), d.str()})
	}
	rows := d.u64()
	if d.err == nil && (rows == 0 || rows > uint64(d.left)/8) {
		d.fail("RESI %s: %d rows", t.name, rows)
	}
	if d.err != nil {
		return nil
	}
	t.rows = int(rows)
	t.weights = make([]float64, t.rows)
	d.f64s(t.weights)
	t.constCoef, t.varIdx = make([][4]float64, m), make([]int, m)
	seen := 0
	for k := range m {
		d.f64s(t.constCoef[k][:])
		t.varIdx[k] = int(int32(d.u32()))
		if t.varIdx[k] >= 0 {
			seen++
		}
	}
	t.nVar = int(d.u32())
	for _, v := range t.varIdx {
		if v < -1 || v >= t.nVar {
			d.fail("RESI %s: coefficient column %d of %d", t.name, v, t.nVar)
		}
	}
	if d.err == nil && seen != t.nVar {
		d.fail("RESI %s: %d variable atoms, the payload says %d", t.name, seen, t.nVar)
	}
	if d.err == nil && t.nVar > 0 {
		n := uint64(t.rows) * uint64(t.nVar) * 4
		if n > uint64(d.left)/8 {
			d.fail("RESI %s: %d coefficients exceed the payload", t.name, n)
			return nil
		}
		t.varCoef = make([]float64, n)
		d.f64s(t.varCoef)
	}
	if d.err != nil {
		return nil
	}
	if err := t.link(); err != nil {
		d.fail("%v", err)
		return nil
	}
	return t
}

// staleError is a compact file that does not match the text beside it.
func staleError(compact, text, what string) error {
	return derrors.Permanent(fmt.Errorf("%w: %s was not made from %s (%s): rewrite it with `foldcorpus confind --compact --rotlib DIR`, or remove it",
		ErrLibrary, compact, text, what))
}

// loadCompact reads dir/rotlib.fcbin, or returns nil, nil when there is
// none. Each text file present beside it must have the size and sha256 it
// records (both always: hashing the production-size texts costs ~0.1 s CPU
// with SHA-NI, the price of never loading a library other than the texts');
// a text that is absent is not checked.
func loadCompact(dir string) (*Library, error) {
	path := filepath.Join(dir, CompactName)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
	}
	h, err := readCompactHeader(f, path, fi.Size())
	if err != nil {
		return nil, err
	}
	texts := []struct {
		path string
		sum  TextSum
	}{{filepath.Join(dir, "EBL.out"), h.ebl}, {filepath.Join(dir, "BEBL.out"), h.bebl}}
	for _, t := range texts {
		st, err := os.Stat(t.path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
		}
		if st.Size() != t.sum.Size {
			return nil, staleError(path, t.path, fmt.Sprintf("%d bytes, it records %d", st.Size(), t.sum.Size))
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
	}
	lib, _, err := readCompact(f, path, fi.Size())
	if err != nil {
		if !errors.Is(err, ErrLibrary) {
			err = derrors.Permanent(fmt.Errorf("%w: %s: %v", ErrLibrary, path, err))
		}
		return nil, err
	}
	for _, t := range texts {
		if err := checkText(t.path, path, t.sum); err != nil {
			return nil, err
		}
	}
	lib.Dir = dir
	return lib, nil
}

// checkText compares the sha256 of the text file at path (if it exists)
// with sum.
func checkText(path, compact string, sum TextSum) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
	}
	defer f.Close()
	h := &countHash{Hash: sha256.New()}
	if _, err := io.Copy(h, f); err != nil {
		return derrors.Permanent(fmt.Errorf("%w: %s: %v", ErrLibrary, path, err))
	}
	if got := h.sum(); got != sum {
		return staleError(compact, path, fmt.Sprintf("sha256 %x, it records %x", got.SHA256, sum.SHA256))
	}
	return nil
}

// Residues is the number of residue templates (EBL RESI blocks).
func (lib *Library) Residues() int { return len(lib.ebl) }
