package confind

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// LoadLibrary reads dir/EBL.out and dir/BEBL.out. It does no network I/O
// and keeps no file open; it may be called concurrently. A missing file or
// a malformed line is an error wrapping ErrLibrary and derrors.ErrPermanent
// that names the file and, for content errors, the line.
func LoadLibrary(dir string) (*Library, error) {
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

// ReadLibrary parses the two library texts; eblName and beblName are used
// in error messages. Errors are as LoadLibrary's.
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
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f') {
			i++
		}
		j := i
		for j < len(s) && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' || s[j] == '\v' || s[j] == '\f') {
			j++
		}
		if j > i {
			dst = append(dst, s[i:j])
		}
		i = j
	}
	return dst
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloat is strconv.ParseFloat(s, 64) with a fast exact path for plain
// decimals of at most 15 digits (an exact integer divided by an exact power
// of ten is correctly rounded, as ParseFloat and Python's float() are).
func parseFloat(s []byte) (float64, error) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, i = s[0] == '-', 1
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(s); i++ {
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
			digits = 99
		}
	}
	if digits == 0 || digits > 15 {
		return strconv.ParseFloat(string(s), 64)
	}
	v := float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, nil
}

func (lib *Library) readEBL(r io.Reader, name string) error {
	var cur *eblResidue
	var scratch []float64 // CONF values of the current residue, reused
	finish := func() error {
		if cur == nil {
			return nil
		}
		t, err := cur.build(name)
		scratch = cur.conf[:0]
		if err != nil {
			return err
		}
		lib.ebl[t.name] = t
		lib.ConfRows += t.rows
		cur = nil
		return nil
	}
	err := lines(r, name, func(ln int, f [][]byte) error {
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
			cur = &eblResidue{name: string(f[1]), line: ln, conf: scratch}
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
	conf       []float64 // rows of 3M values, M known only once CONF starts
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
		for _, tok := range f {
			v, err := parseFloat(tok)
			if err != nil {
				return lineError(file, ln, "CONF value %q is not a number", tok)
			}
			e.conf = append(e.conf, v)
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

// build validates the block and computes the placement coefficients.
func (e *eblResidue) build(file string) (*template, error) {
	if e.rows == 0 {
		return nil, lineError(file, e.line, "RESI %s has no CONF rows", e.name)
	}
	if e.weights == nil {
		return nil, lineError(file, e.line, "RESI %s has no WEIGHTS line", e.name)
	}
	if len(e.weights) != e.rows {
		return nil, lineError(file, e.weightLine, "RESI %s has %d WEIGHTS for %d CONF rows", e.name, len(e.weights), e.rows)
	}
	m := len(e.dih)
	t := &template{name: e.name, rows: e.rows, weights: e.weights,
		constCoef: make([][4]float64, m), varIdx: make([]int, m)}
	for k := range e.dih {
		t.atoms = append(t.atoms, e.dih[k][3])
		t.parents = append(t.parents, [3]string{e.dih[k][0], e.dih[k][1], e.dih[k][2]})
	}
	at := map[string]int{}
	for k := range e.dih {
		var ref [3]int
		for i, p := range t.parents[k] {
			if j, ok := at[p]; ok {
				ref[i] = j
				continue
			}
			slot := bbSlot(p)
			ref[i] = -1 - slot
			t.needBB[slot] = true
		}
		t.parentRef = append(t.parentRef, ref)
		from := -1
		for j := 0; j < k; j++ {
			if t.parentRef[j][1] == ref[0] && t.parentRef[j][2] == ref[1] {
				from = j
				break
			}
		}
		t.abFrom = append(t.abFrom, from)
		at[t.atoms[k]] = k
		tested := !notTested[t.atoms[k]] && (t.atoms[k] != "CB" || t.name == "ALA")
		t.tested = append(t.tested, tested)
		c := tested && !strings.HasPrefix(t.atoms[k], "H")
		t.contact = append(t.contact, c)
		if c {
			t.nContact++
		}
	}
	w := 3 * m
	for k := 0; k < m; k++ {
		t.varIdx[k] = -1
		for r := 1; r < e.rows; r++ {
			a, b := e.conf[r*w:], e.conf[:w]
			if a[k] != b[k] || a[m+k] != b[m+k] || a[2*m+k] != b[2*m+k] || math.Signbit(a[k]) != math.Signbit(b[k]) {
				t.varIdx[k] = t.nVar
				t.nVar++
				break
			}
		}
		if t.varIdx[k] < 0 {
			t.constCoef[k] = coefOf(e.conf[k], e.conf[m+k], e.conf[2*m+k])
		}
	}
	if t.nVar > 0 {
		t.varCoef = make([]float64, e.rows*t.nVar*4)
		var lastIn [3]float64
		var last [4]float64
		for k := 0; k < m; k++ {
			vi := t.varIdx[k]
			if vi < 0 {
				continue
			}
			for r := 0; r < e.rows; r++ {
				row := e.conf[r*w:]
				in := [3]float64{row[k], row[m+k], row[2*m+k]}
				if r == 0 || in != lastIn || math.Signbit(in[0]) != math.Signbit(lastIn[0]) {
					last, lastIn = coefOf(in[0], in[1], in[2]), in
				}
				copy(t.varCoef[(r*t.nVar+vi)*4:], last[:])
			}
		}
	}
	return t, nil
}

// degToRad is pi/180 as the float64 pyconfind multiplies by.
const degToRad = 0x1.1df46a2529d39p-6

// coefOf returns (bond, -cos t, sin t cos p, sin t sin p) for one placed
// atom (dihedral p and angle t in degrees), the scalars of the NeRF step.
func coefOf(dih, ang, bond float64) [4]float64 {
	t := ang * degToRad
	p := dih * degToRad
	st := math.Sin(t)
	return [4]float64{bond, -math.Cos(t), st * math.Cos(p), st * math.Sin(p)}
}

func (lib *Library) readBEBL(r io.Reader, name string) error {
	var cur *binTable
	var curName string
	var bin []int32 // the current BIN's key, nil for none
	var wild bool
	levnum, levLine := -1, 0
	var haveBin bool
	var binLine int
	checkBin := func() error {
		if haveBin && levnum < 0 {
			return lineError(name, binLine, "BIN without LEVNUM/CONFIDX in RESI %s", curName)
		}
		return nil
	}
	err := lines(r, name, func(ln int, f [][]byte) error {
		kw := string(f[0])
		switch kw {
		case "PHIBIN", "PSIBIN":
			if len(f) != 2 {
				return lineError(name, ln, "%s wants one value", kw)
			}
			v, err := parseFloat(f[1])
			if err != nil || !(v > 0) {
				return lineError(name, ln, "%s %q is not a positive number", kw, f[1])
			}
			if kw == "PHIBIN" {
				lib.phiBin = v
			} else {
				lib.psiBin = v
			}
		case "RESI":
			if err := checkBin(); err != nil {
				return err
			}
			if len(f) != 2 {
				return lineError(name, ln, "RESI wants one residue name")
			}
			curName = string(f[1])
			if _, dup := lib.bebl[curName]; dup {
				return lineError(name, ln, "residue %s defined twice", curName)
			}
			cur = &binTable{bins: map[[2]int32][]int32{}}
			lib.bebl[curName] = cur
			haveBin = false
		case "BIN":
			if cur == nil {
				return lineError(name, ln, "BIN before RESI")
			}
			if err := checkBin(); err != nil {
				return err
			}
			if len(f) != 3 {
				return lineError(name, ln, "BIN wants phi and psi")
			}
			wild = string(f[1]) == "*" || string(f[2]) == "*"
			bin = nil
			if !wild {
				phi, e1 := strconv.Atoi(string(f[1]))
				psi, e2 := strconv.Atoi(string(f[2]))
				if e1 != nil || e2 != nil {
					return lineError(name, ln, "BIN %s %s: not integers or *", f[1], f[2])
				}
				bin = []int32{int32(phi), int32(psi)}
			}
			haveBin, binLine, levnum = true, ln, -1
		case "LEVNUM":
			if !haveBin || len(f) != 2 {
				return lineError(name, ln, "LEVNUM wants one count after a BIN")
			}
			n, err := strconv.Atoi(string(f[1]))
			if err != nil || n < 0 {
				return lineError(name, ln, "LEVNUM %q is not a count", f[1])
			}
			levnum, levLine = n, ln
		case "CONFIDX":
			if !haveBin || levnum < 0 {
				return lineError(name, ln, "CONFIDX without BIN and LEVNUM")
			}
			if len(f)-1 != levnum {
				return lineError(name, ln, "CONFIDX has %d indices, LEVNUM (line %d) says %d", len(f)-1, levLine, levnum)
			}
			t := lib.ebl[curName]
			idx := make([]int32, levnum)
			for k, tok := range f[1:] {
				v, err := strconv.Atoi(string(tok))
				if err != nil || v < 0 {
					return lineError(name, ln, "CONFIDX %q is not an index", tok)
				}
				if t != nil && v >= t.rows {
					return lineError(name, ln, "CONFIDX %d is out of range: RESI %s has %d CONF rows", v, curName, t.rows)
				}
				idx[k] = int32(v)
			}
			if t != nil && levnum > len(t.weights) {
				return lineError(name, ln, "bin of %d rotamers but RESI %s has %d weights", levnum, curName, len(t.weights))
			}
			if wild {
				cur.wildcard, cur.hasWild = idx, true
			} else {
				cur.bins[[2]int32{bin[0], bin[1]}] = idx
			}
			haveBin, levnum = false, 0
		default:
			return lineError(name, ln, "unknown keyword %q", kw)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := checkBin(); err != nil {
		return err
	}
	if lib.phiBin == 0 || lib.psiBin == 0 {
		return lineError(name, 0, "PHIBIN and PSIBIN are required")
	}
	return nil
}
