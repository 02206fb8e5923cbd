package coordfront

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Token costs of the budget arithmetic.
const (
	FrameTokens      = 4 // <doctype> <begin_sequence> … <begin_statements> … <end>
	TerminusTokens   = 4 // <n-term> <pS> <c-term> <pE>
	ContactStatement = 3 // <contact> <pX> <pY>
)

// Config holds the knobs both formats share (GenerationConfig's common
// fields); start from DefaultConfig.
type Config struct {
	MinSeqSeparation   int     // contact pool: j - i >= this
	MinContactDegree   float64 // contact pool: degree >= this
	NumPositionIndices int     // the position ring, and the residue cap
	NContactsZeroProb  float64 // probability of emitting no contact
	NContactsMax       int     // most contacts emitted
	CubeSize           float64 // the coordinate cube's edge, Å
	CubeMargin         float64 // placement margin inside the cube, Å
	ContextLength      int     // the document's token budget
}

// DefaultConfig is the reference's GenerationConfig defaults with the given
// context length (32768 for coordinates, 8192 for crops).
func DefaultConfig(contextLength int) Config {
	return Config{MinSeqSeparation: 6, MinContactDegree: 0.001, NumPositionIndices: 2000,
		NContactsZeroProb: 0.3, NContactsMax: 50, CubeSize: 1000.0, CubeMargin: 10.0,
		ContextLength: contextLength}
}

// Front is a document's front half: its random stream (positioned after
// the contact draws), the sequence and contact sections, and the placed
// atoms.
type Front struct {
	Rand    *pyrandom.Rand
	Normals Normals
	Atoms   Atoms
	L       int
	Start   int
	// Order is the shuffled sequence section: k < L is residue k's
	// statement, L the n-terminus, L+1 the c-terminus.
	Order []int32
	Quat  [4]float64 // w, x, y, z
	Trans [3]float64
	// Placed are the atoms' coordinates, rotated and placed in the cube.
	Placed [][3]float64
	// PoolSize is the number of contacts eligible for sampling.
	PoolSize int
	// Contacts are the emitted contacts in document order, each as the
	// (first, second) residue indices it is written with.
	Contacts [][2]int32
	ring     int
	scratch  *Scratch
}

// grow returns s resized to n, reusing its memory when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Pos is residue k's ring index.
func (f *Front) Pos(k int) int {
	switch p := f.Start + k; {
	case p >= 0 && p < f.ring:
		return p
	case p >= f.ring && p < 2*f.ring: // k < L <= ring: no division
		return p - f.ring
	}
	return (f.Start + k) % f.ring
}

// Seed is the document seed of entryID: int(sha1(entry_id)[:8], 16).
func Seed(entryID string) uint64 {
	sum := sha1.Sum([]byte(entryID))
	return uint64(binary.BigEndian.Uint32(sum[:4]))
}

// Scratch is the reusable memory of Build: a Front built into it, and
// everything reachable from that Front, is valid until the next BuildInto
// into the same Scratch. A Scratch must not be used by two goroutines at
// once.
type Scratch struct {
	vocab   []uint8
	coords  [][3]float64
	entries []keyEntry
	tables  []keyTable // by chain id
	chains  []string
	// the join's atoms when they are not the walk's (joinAtoms)
	outVocab     []uint8
	outCoord     [][3]float64
	keyLo, keyHi []int64
	keyCnt       []int
	atoms        Atoms
	front        Front
	rand         *pyrandom.Rand
	pool         []int32
	sel          []int32
	// W is a token writer whose buffer callers may reuse for the document.
	W Writer
}

// Build runs the reference's analysis-side checks, the atom join, the
// filters and the front half's draws, in the reference's order. It returns
// the front half, or a designed-in filter reason.
func Build(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg Config) (*Front, string) {
	return new(Scratch).Build(st, a, entryID, cfg)
}

// Build is Build with s's memory (see Scratch).
func (s *Scratch) Build(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg Config) (*Front, string) {
	if r := Check(a); r != "" {
		return nil, r
	}
	s.joinAtoms(st, a)
	atoms := s.atoms
	if atoms.Joined == 0 {
		return nil, FilterNoAtomsJoin
	}
	L := len(a.ResName)
	switch {
	case L < 2:
		return nil, FilterTooShort
	case L > cfg.NumPositionIndices:
		return nil, FilterTooLong
	case FrameTokens+2*L+TerminusTokens > cfg.ContextLength:
		return nil, FilterSequenceRoom
	case atoms.Bad != nil: // the cube filter cannot pass a NaN span
		return nil, ReasonNonFinite
	}
	if s.rand == nil {
		s.rand = pyrandom.New(Seed(entryID))
	} else {
		s.rand.Reseed(Seed(entryID))
	}
	r := s.rand
	f := &s.front
	*f = Front{Rand: r, Normals: Normals{R: r}, Atoms: atoms, L: L, ring: cfg.NumPositionIndices,
		Order: f.Order, Placed: f.Placed, Contacts: f.Contacts[:0], scratch: s}
	// (1) the ring start, (2) the sequence section's shuffle
	f.Start = r.RandBelow(cfg.NumPositionIndices)
	f.Order = grow(f.Order, L+2)
	for i := range f.Order {
		f.Order[i] = int32(i)
	}
	pyrandom.Shuffle(r, f.Order)
	// (3) rotation, (4) placement
	if !f.place(cfg) {
		return nil, FilterCube
	}
	// (5) contacts
	f.sampleContacts(a, cfg)
	return f, ""
}

// place rotates the atoms about their centroid by a random quaternion and
// translates them to a random place in the cube; false when the rotated
// span does not fit.
func (f *Front) place(cfg Config) bool {
	m := len(f.Atoms.Coord)
	var s0, s1, s2 float64
	for _, c := range f.Atoms.Coord {
		s0 += c[0]
		s1 += c[1]
		s2 += c[2]
	}
	cen := [3]float64{s0 / float64(m), s1 / float64(m), s2 / float64(m)}
	var q [4]float64
	for i := range q {
		q[i] = f.Normals.Gauss(1.0)
	}
	norm := math.Sqrt(float64(float64(float64(q[0]*q[0])+float64(q[1]*q[1]))+float64(q[2]*q[2])) + float64(q[3]*q[3]))
	var R [3][3]float64
	if norm == 0 {
		R = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
		f.Quat = [4]float64{1, 0, 0, 0}
	} else {
		w, x, y, z := q[0]/norm, q[1]/norm, q[2]/norm, q[3]/norm
		f.Quat = [4]float64{w, x, y, z}
		p := func(a, b float64) float64 { return float64(a * b) }
		R = [3][3]float64{
			{1 - 2*(p(y, y)+p(z, z)), 2 * (p(x, y) - p(z, w)), 2 * (p(x, z) + p(y, w))},
			{2 * (p(x, y) + p(z, w)), 1 - 2*(p(x, x)+p(z, z)), 2 * (p(y, z) - p(x, w))},
			{2 * (p(x, z) - p(y, w)), 2 * (p(y, z) + p(x, w)), 1 - 2*(p(x, x)+p(y, y))},
		}
	}
	f.Placed = grow(f.Placed, m)
	placed := f.Placed[:len(f.Atoms.Coord)]
	lo, hi := rotate(placed, f.Atoms.Coord, cen, &R)
	limit := cfg.CubeSize - 2.0*cfg.CubeMargin
	var span [3]float64
	for j := range 3 {
		span[j] = hi[j] - lo[j]
	}
	if max(span[0], span[1], span[2]) > limit {
		return false
	}
	for j := range 3 {
		slack := limit - span[j]
		target := cfg.CubeMargin + f.Rand.Uniform(0.0, slack)
		f.Trans[j] = target - lo[j]
	}
	t0, t1, t2 := f.Trans[0], f.Trans[1], f.Trans[2]
	for i := range placed {
		p := &placed[i]
		p[0] += t0
		p[1] += t1
		p[2] += t2
	}
	return true
}

// rotate sets placed[i] to R times (coord[i] - cen), in OpenBLAS dgemm's
// order on the reference machine (notes §6), and returns each axis's
// bounds (NaN where a NaN fell on the axis): with the C kernel where it is
// built in and the CPU has FMA (Go's math.FMA checks the CPU at each call,
// and the call it may make spills the loop's registers), else rotateGo.
func rotate(placed, coord [][3]float64, cen [3]float64, R *[3][3]float64) (lo, hi [3]float64) {
	if len(coord) > 0 && rotateCOK && useRotateC {
		return rotateC(placed, coord, cen, R)
	}
	return rotateGo(placed, coord, cen, R)
}

// useRotateC selects rotateC where it is built in; tests turn it off.
var useRotateC = true

// rotateGo is rotate in Go. The bounds are kept in locals with plain
// compares: a NaN on an axis is remembered apart and makes that axis's
// bounds NaN at the end, as the min and max builtins would (they differ
// only there, and on the sign of a zero bound, which no use of the bounds
// can see).
func rotateGo(placed, coord [][3]float64, cen [3]float64, R *[3][3]float64) (lo, hi [3]float64) {
	r0, r1, r2 := R[0], R[1], R[2]
	lo0, lo1, lo2 := math.Inf(1), math.Inf(1), math.Inf(1)
	hi0, hi1, hi2 := math.Inf(-1), math.Inf(-1), math.Inf(-1)
	nan0, nan1, nan2 := false, false, false
	for i, c := range coord {
		d0, d1, d2 := c[0]-cen[0], c[1]-cen[1], c[2]-cen[2]
		v0 := math.FMA(d2, r0[2], math.FMA(d1, r0[1], float64(d0*r0[0])))
		v1 := math.FMA(d2, r1[2], math.FMA(d1, r1[1], float64(d0*r1[0])))
		v2 := math.FMA(d2, r2[2], math.FMA(d1, r2[1], float64(d0*r2[0])))
		placed[i] = [3]float64{v0, v1, v2}
		nan0, nan1, nan2 = nan0 || v0 != v0, nan1 || v1 != v1, nan2 || v2 != v2
		if v0 < lo0 {
			lo0 = v0
		}
		if v0 > hi0 {
			hi0 = v0
		}
		if v1 < lo1 {
			lo1 = v1
		}
		if v1 > hi1 {
			hi1 = v1
		}
		if v2 < lo2 {
			lo2 = v2
		}
		if v2 > hi2 {
			hi2 = v2
		}
	}
	lo, hi = [3]float64{lo0, lo1, lo2}, [3]float64{hi0, hi1, hi2}
	for j, nan := range [3]bool{nan0, nan1, nan2} {
		if nan {
			lo[j], hi[j] = math.NaN(), math.NaN()
		}
	}
	return lo, hi
}

// sampleContacts draws the contact statements: the zero coin (always
// drawn), the count, the sample from the eligible pool in record order,
// its shuffle and each contact's orientation.
func (f *Front) sampleContacts(a *contactsv1.Analysis, cfg Config) {
	pool := f.scratch.pool[:0]
	defer func() { f.scratch.pool = pool }()
	for k := range a.ContactI {
		if a.ContactJ[k]-a.ContactI[k] >= int64(cfg.MinSeqSeparation) && a.Degree[k] >= cfg.MinContactDegree {
			pool = append(pool, int32(k))
		}
	}
	f.PoolSize = len(pool)
	if f.Rand.Random() < cfg.NContactsZeroProb || len(pool) == 0 {
		return
	}
	n := f.Rand.RandInt(1, min(cfg.NContactsMax, len(pool)))
	sel := pyrandom.SampleIndices(f.Rand, f.scratch.sel[:0], len(pool), n)
	f.scratch.sel = sel
	pyrandom.Shuffle(f.Rand, sel)
	f.Contacts = grow(f.Contacts, n)
	for k, s := range sel {
		c := pool[s]
		i, j := int32(a.ContactI[c]), int32(a.ContactJ[c])
		if f.Rand.Random() < 0.5 {
			i, j = j, i
		}
		f.Contacts[k] = [2]int32{i, j}
	}
}

// FixedTokens is the frame plus the sequence section: 2L + 8.
func (f *Front) FixedTokens() int { return FrameTokens + 2*f.L + TerminusTokens }

// WritePrefix writes the document up to its coordinate section: the
// document type, the shuffled sequence section and the contacts.
func (f *Front) WritePrefix(w *Writer, docType string, resName []string) {
	w.Tok(docType)
	w.Tok(TokBeginSequence)
	for _, k := range f.Order {
		switch int(k) {
		case f.L:
			w.Tok(TokNTerm)
			w.Tok(PositionToken(f.Pos(0)))
		case f.L + 1:
			w.Tok(TokCTerm)
			w.Tok(PositionToken(f.Pos(f.L - 1)))
		default:
			w.Tok(PositionToken(f.Pos(int(k))))
			w.Buf = append(append(append(w.Buf, " <"...), resName[k]...), '>')
			w.Tokens++
		}
	}
	w.Tok(TokBeginStatements)
	for _, c := range f.Contacts {
		w.Tok(TokContact)
		w.Tok(PositionToken(f.Pos(int(c[0]))))
		w.Tok(PositionToken(f.Pos(int(c[1]))))
	}
}

// ValidateConfig checks the shared knobs.
func ValidateConfig(c Config) error {
	switch {
	case c.NumPositionIndices < 1:
		return fmt.Errorf("num_position_indices must be >= 1, got %d", c.NumPositionIndices)
	case c.MinSeqSeparation < 0:
		return fmt.Errorf("min_seq_separation must be >= 0, got %d", c.MinSeqSeparation)
	case !(c.MinContactDegree >= 0):
		return fmt.Errorf("min_contact_degree must be a number >= 0, got %v", c.MinContactDegree)
	case !(c.NContactsZeroProb >= 0 && c.NContactsZeroProb <= 1):
		return fmt.Errorf("n_contacts_zero_prob must be in [0, 1], got %v", c.NContactsZeroProb)
	case c.NContactsMax < 1:
		return fmt.Errorf("n_contacts_max must be >= 1, got %d", c.NContactsMax)
	case !(c.CubeMargin >= 0) || !(c.CubeSize-2*c.CubeMargin > 0) || math.IsInf(c.CubeSize, 0):
		return fmt.Errorf("cube_size %v and cube_margin %v leave no room (need cube_size > 2*cube_margin >= 0)", c.CubeSize, c.CubeMargin)
	case c.ContextLength < 1:
		return fmt.Errorf("context_length must be >= 1, got %d", c.ContextLength)
	}
	return nil
}
