package confind

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// ErrLibrary marks a rotamer library that cannot be used (missing file,
// syntax or consistency error). It is permanent: the same files fail again.
var ErrLibrary = errors.New("confind: bad rotamer library")

// Library is a parsed backbone-dependent rotamer library (MSL's EBL.out
// and BEBL.out). It is immutable after loading and safe for concurrent use.
type Library struct {
	Name     string // the EBL LIBRARY line, "" if absent
	Dir      string
	phiBin   float64
	psiBin   float64
	ebl      map[string]*template
	bebl     map[string]*binTable
	ConfRows int // CONF rows over all residues
}

// template is one residue's internal-coordinate template and its rows.
type template struct {
	name    string
	atoms   []string    // placed atoms in DEFI order
	parents [][3]string // the first three atoms of each dihedral DEFI
	rows    int
	weights []float64
	// Per placed atom k, the placement coefficients (bond, -cos t,
	// sin t cos p, sin t sin p): coef[k] when the column is the same in every
	// row, else varCoef[(row*nVar+varIdx[k])*4:].
	constCoef [][4]float64
	varIdx    []int
	nVar      int
	varCoef   []float64
	// parentRef[k][i] is the i-th parent of atom k: an earlier atom index
	// >= 0, or -1-slot for a backbone slot (bbN, bbCA, bbC, bbO).
	parentRef [][3]int
	needBB    [4]bool
	// abFrom[k] is an earlier atom whose frame's c-b is atom k's b-a (same
	// two parents), or -1.
	abFrom []int
	// tested: clash-tested atoms; contact: tested and not hydrogen.
	tested   []bool
	contact  []bool
	nContact int
	// contactAt lists the contact atoms' indices, in atom order.
	contactAt []int
}

// binTable is one residue's BEBL bins.
type binTable struct {
	bins     map[[2]int32][]int32
	wildcard []int32
	hasWild  bool
}

// lineError is a library error naming the file and line.
func lineError(file string, line int, format string, args ...any) error {
	if line == 0 {
		return derrors.Permanent(fmt.Errorf("%w: %s: %s", ErrLibrary, file, fmt.Sprintf(format, args...)))
	}
	return derrors.Permanent(fmt.Errorf("%w: %s:%d: %s", ErrLibrary, file, line, fmt.Sprintf(format, args...)))
}

// LoadLibrary reads dir/EBL.out and dir/BEBL.out, or their compact form
// dir/rotlib.fcbin (CompactName) where it exists: a compact file must
// match (size and sha256) each text beside it, and one that is stale,
// corrupt, truncated or of another version is an error naming it, never
// a fall back to the texts. It does no network I/O and keeps no file open; it may be called concurrently, and retrying
// gives the same result for the same files (nothing is cached: see Shared). A missing file or
// a malformed line is an error wrapping ErrLibrary and derrors.ErrPermanent
// that names the file and, for content errors, the line.
func LoadLibrary(dir string) (*Library, error) {
	if lib, err := loadCompact(dir); lib != nil || err != nil {
		return lib, err
	}
	ebl, err := os.Open(filepath.Join(dir, "EBL.out"))
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
	}
	defer ebl.Close()
	bebl, err := os.Open(filepath.Join(dir, "BEBL.out"))
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %v", ErrLibrary, err))
	}
	defer bebl.Close()
	lib, err := ReadLibrary(ebl, filepath.Join(dir, "EBL.out"), bebl, filepath.Join(dir, "BEBL.out"))
	if lib != nil {
		lib.Dir = dir
	}
	return lib, err
}

var shared struct {
	sync.Mutex
	libs map[string]*sharedLib
}

type sharedLib struct {
	once sync.Once
	lib  *Library
	err  error
}

// Shared returns the library of dir, loading it once per process: every
// caller with the same (cleaned) dir gets the same *Library, or the same
// error. Safe for concurrent use; concurrent first callers wait for one load.
// A failed load is not retried (the files are permanent input).
func Shared(dir string) (*Library, error) {
	key := filepath.Clean(dir)
	shared.Lock()
	if shared.libs == nil {
		shared.libs = map[string]*sharedLib{}
	}
	s := shared.libs[key]
	if s == nil {
		s = &sharedLib{}
		shared.libs[key] = s
	}
	shared.Unlock()
	s.once.Do(func() { s.lib, s.err = LoadLibrary(key) })
	return s.lib, s.err
}

// ReadLibrary parses the two library texts (reading each to EOF);
// eblName and beblName are used in error messages. Errors are as
// LoadLibrary's.
func ReadLibrary(ebl io.Reader, eblName string, bebl io.Reader, beblName string) (*Library, error) {
	lib := &Library{ebl: map[string]*template{}, bebl: map[string]*binTable{}}
	if err := lib.readEBL(ebl, eblName); err != nil {
		return nil, err
	}
	if err := lib.readBEBL(bebl, beblName); err != nil {
		return nil, err
	}
	return lib, nil
}

// lines calls fn for every non-blank, non-comment line with its fields.
func lines(r io.Reader, name string, fn func(line int, f [][]byte) error) error {
	return linesFast(r, name, nil, fn)
}

// linesFast is lines, offering each raw line to fast first (when not nil):
// a line fast handles (true) is not split nor given to fn.
func linesFast(r io.Reader, name string, fast func(raw []byte) bool, fn func(line int, f [][]byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var fields [][]byte
	n := 0
	for {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return lineError(name, n+1, "line longer than 1 MiB")
		}
		if len(raw) > 0 {
			n++
			if fast != nil && fast(raw) {
				if err == io.EOF {
					return nil
				}
				continue
			}
			fields = splitFields(fields[:0], raw)
			if len(fields) > 0 && fields[0][0] != '#' {
				if ferr := fn(n, fields); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return derrors.Permanent(fmt.Errorf("%w: %s: %v", ErrLibrary, name, err))
		}
	}
}

func splitFields(dst [][]byte, s []byte) [][]byte {
	i := 0
	for i < len(s) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if j > i {
			dst = append(dst, s[i:j])
		}
		i = j
	}
	return dst
}

// scanConf parses the whitespace-separated fields of s into dst, exactly
// len(dst) of them, as splitFields then parseFloat would; it reports false
// (dst unspecified) for anything else: another count, or a field that is
// not a plain decimal (plainDecimal).
func scanConf(dst []float64, s []byte) bool {
	i, k := 0, 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return k == len(dst)
		}
		if k == len(dst) {
			return false
		}
		v, n, ok := plainDecimal(s[i:])
		if !ok {
			return false
		}
		i += n
		dst[k] = v
		k++
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat is strconv.ParseFloat(s, 64) with a fast exact path for plain
// decimals of at most 15 digits (an exact integer divided by an exact power
// of ten is correctly rounded, as ParseFloat and Python's float() are).
func parseFloat(s []byte) (float64, error) {
	if v, n, ok := plainDecimal(s); ok && n == len(s) {
		return v, nil
	}
	return strconv.ParseFloat(string(s), 64)
}

// plainDecimal parses the field at the start of s (up to whitespace or the
// end), an optional sign then digits with at most one '.', at most 15
// digits in all: it returns the value (an exact integer divided by an exact
// power of ten, so correctly rounded), the field's length, and false for
// any other field.
func plainDecimal(s []byte) (v float64, n int, ok bool) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, i = s[0] == '-', 1
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(s) && !isSpace(s[i]); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, i, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, i, false
	}
	v = float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, i, true
}

func (lib *Library) readEBL(r io.Reader, name string) error {
	var cur *eblResidue
	conf := new(confRows) // the CONF values of the current residue, reused
	finish := func() error {
		if cur == nil {
			return nil
		}
		t, err := cur.build(name)
		if err != nil {
			return err
		}
		lib.ebl[t.name] = t
		lib.ConfRows += t.rows
		cur = nil
		return nil
	}
	// CONF rows after a residue's first, the bulk of the file, are parsed
	// straight from the line when they are plain (scanConf); any other
	// line, or one scanConf refuses, takes the general path and its errors.
	var scratch []float64
	fast := func(raw []byte) bool {
		if cur == nil || cur.rows == 0 || cur.weights != nil || !bytes.HasPrefix(raw, []byte("CONF ")) {
			return false
		}
		scratch = slices.Grow(scratch[:0], cur.width)[:cur.width]
		if !scanConf(scratch, raw[len("CONF "):]) {
			return false
		}
		copy(cur.conf.next(), scratch)
		cur.rows++
		return true
	}
	err := linesFast(r, name, fast, func(ln int, f [][]byte) error {
		kw := string(f[0])
		if kw == "RESI" {
			if err := finish(); err != nil {
				return err
			}
			if len(f) != 2 {
				return lineError(name, ln, "RESI wants one residue name, got %d fields", len(f)-1)
			}
			if _, dup := lib.ebl[string(f[1])]; dup {
				return lineError(name, ln, "residue %s defined twice", f[1])
			}
			cur = &eblResidue{name: string(f[1]), line: ln, conf: conf}
			return nil
		}
		if kw == "LIBRARY" && cur == nil && len(lib.ebl) == 0 {
			if len(f) > 1 {
				lib.Name = string(f[1])
			}
			return nil
		}
		if cur == nil {
			return lineError(name, ln, "%s before the first RESI", kw)
		}
		return cur.add(name, ln, kw, f[1:])
	})
	if err != nil {
		return err
	}
	if err := finish(); err != nil {
		return err
	}
	if len(lib.ebl) == 0 {
		return lineError(name, 0, "no RESI entries")
	}
	return nil
}

// eblResidue collects one RESI block of EBL.out before validation.
type eblResidue struct {
	name       string
	line       int
	mobi       []string
	mobiLine   int
	dih        [][4]string
	ang        [][3]string
	bond       [][2]string
	defiLine   int
	conf       *confRows // rows of 3M values, M known only once CONF starts
	rows       int
	width      int
	weights    []float64
	weightLine int
}

func (e *eblResidue) add(file string, ln int, kw string, f [][]byte) error {
	switch kw {
	case "MOBI":
		if e.mobi != nil {
			return lineError(file, ln, "second MOBI line in RESI %s", e.name)
		}
		e.mobi = make([]string, 0, len(f))
		for _, a := range f {
			e.mobi = append(e.mobi, string(a))
		}
		e.mobiLine = ln
	case "DEFI":
		if e.rows > 0 || e.weights != nil {
			return lineError(file, ln, "DEFI after CONF in RESI %s", e.name)
		}
		e.defiLine = ln
		switch len(f) {
		case 4:
			e.dih = append(e.dih, [4]string{string(f[0]), string(f[1]), string(f[2]), string(f[3])})
		case 3:
			e.ang = append(e.ang, [3]string{string(f[0]), string(f[1]), string(f[2])})
		case 2:
			e.bond = append(e.bond, [2]string{string(f[0]), string(f[1])})
		default:
			return lineError(file, ln, "DEFI wants 2, 3 or 4 atoms, got %d", len(f))
		}
	case "CONF":
		if e.rows == 0 {
			if err := e.checkDefi(file, ln); err != nil {
				return err
			}
			e.width = 3 * len(e.dih)
		}
		if e.weights != nil {
			return lineError(file, ln, "CONF after WEIGHTS in RESI %s", e.name)
		}
		if len(f) != e.width {
			return lineError(file, ln, "CONF has %d values, want %d (3 x %d DEFI) in RESI %s", len(f), e.width, len(e.dih), e.name)
		}
		if e.rows == 0 {
			e.conf.reset(e.width)
		}
		dst := e.conf.next()
		for i, tok := range f {
			v, err := parseFloat(tok)
			if err != nil {
				return lineError(file, ln, "CONF value %q is not a number", tok)
			}
			dst[i] = v
		}
		e.rows++
	case "WEIGHTS":
		if e.weights != nil {
			return lineError(file, ln, "second WEIGHTS line in RESI %s", e.name)
		}
		e.weights = make([]float64, 0, len(f))
		for _, tok := range f {
			v, err := parseFloat(tok)
			if err != nil {
				return lineError(file, ln, "WEIGHTS value %q is not a number", tok)
			}
			e.weights = append(e.weights, v)
		}
		e.weightLine = ln
	default:
		return lineError(file, ln, "unknown keyword %q in RESI %s", kw, e.name)
	}
	return nil
}

// confRows holds a residue's CONF rows in chunks of whole rows, so that a
// large residue (ARG's 97,234 rows in a production-size library) is neither
// copied as it grows nor left behind as garbage: the chunks are reused by
// the next residue. Each row is width values.
type confRows struct {
	width, perChunk, n int
	chunks             [][]float64
}

// confChunk is the size of a chunk in values (512 KiB).
const confChunk = 1 << 16

func (c *confRows) reset(width int) {
	c.width, c.perChunk, c.n = width, max(1, confChunk/max(width, 1)), 0
}

// next returns the memory of a new row, to be filled.
func (c *confRows) next() []float64 {
	ci, o := c.n/c.perChunk, (c.n%c.perChunk)*c.width
	if ci == len(c.chunks) {
		c.chunks = append(c.chunks, make([]float64, max(confChunk, c.width)))
	}
	c.n++
	return c.chunks[ci][o : o+c.width : o+c.width]
}

// row returns row r (< the rows added since reset).
func (c *confRows) row(r int) []float64 {
	o := (r % c.perChunk) * c.width
	return c.chunks[r/c.perChunk][o : o+c.width : o+c.width]
}

// checkDefi validates the DEFI groups and MOBI before the first CONF row.
func (e *eblResidue) checkDefi(file string, ln int) error {
	at := e.defiLine
	if at == 0 {
		at = ln
	}
	if len(e.dih) != len(e.ang) || len(e.dih) != len(e.bond) {
		return lineError(file, at, "RESI %s has %d dihedral, %d angle and %d bond DEFI lines; they must be equal", e.name, len(e.dih), len(e.ang), len(e.bond))
	}
	placed := map[string]bool{}
	for k := range e.dih {
		a := e.dih[k][3]
		if e.ang[k][2] != a || e.bond[k][1] != a {
			return lineError(file, at, "RESI %s DEFI %d ends in %s (dihedral), %s (angle), %s (bond); they must agree", e.name, k+1, a, e.ang[k][2], e.bond[k][1])
		}
		for _, p := range e.dih[k][:3] {
			if !placed[p] && !isBackbone(p) {
				return lineError(file, at, "RESI %s DEFI %d places %s from %s, which is neither a backbone atom nor placed before it", e.name, k+1, a, p)
			}
		}
		placed[a] = true
	}
	mobi := map[string]bool{}
	for _, m := range e.mobi {
		mobi[m] = true
	}
	if e.mobi == nil || len(mobi) != len(placed) || !sameKeys(mobi, placed) {
		return lineError(file, max(e.mobiLine, e.line), "RESI %s: MOBI %v is not the set of DEFI-placed atoms", e.name, e.mobi)
	}
	return nil
}

func sameKeys(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func isBackbone(name string) bool { return bbSlot(name) >= 0 }

func bbSlot(name string) int {
	switch name {
	case "N":
		return bbN
	case "CA":
		return bbCA
	case "C":
		return bbC
	case "O":
		return bbO
	}
	return -1
}

// notTested are the placed-atom names never tested for clashes.
var notTested = map[string]bool{"N": true, "C": true, "CA": true, "H": true, "O": true, "NT": true, "HA": true, "HN": true}
