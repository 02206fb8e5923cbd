// Package coordfront is the front half that MarinFold's two coordinate
// formats, contacts-and-coordinates-v1 and contacts-and-crops-v1, share:
// the structure's eligible heavy atoms joined to the analysis record's
// residues, the designed-in filters, and the first draws of the document's
// random stream (the position ring's start, the shuffled sequence section,
// the random rotation and placement in the coordinate cube, the sampled
// contacts). The formats write their coordinate sections after it
// (../shared/formats/contacts-and-coordinates-crops-notes.md, sections 1-3).
//
// Everything here is pure and deterministic; nothing is safe to share
// between goroutines except the immutable tables.
package coordfront

import (
	"fmt"
	"slices"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Designed-in filter reasons (no document is written). The first three are
// the reference's ValueErrors that its drivers catch and skip; the others
// are its "skipping …" warnings.
const (
	FilterNoProtein    = "no_protein_residues"     // the analysis lists no residue
	FilterMultiChain   = "multi_chain"             // more than one protein chain (max_chains=1)
	FilterNoAtomsJoin  = "no_heavy_atoms_joined"   // no residue got an atom of the structure
	FilterTooShort     = "too_short"               // fewer than 2 residues
	FilterTooLong      = "too_long"                // more residues than position indices
	FilterSequenceRoom = "sequence_exceeds_budget" // frame + sequence section exceed the context
	FilterCube         = "too_large_for_cube"      // the rotated span exceeds cube_size - 2*cube_margin
	// ReasonNonFinite is not a filter: an eligible atom's coordinate is
	// NaN or infinite (mmCIF's '?' and '.' read as NaN, as gemmi reads
	// them), where the reference's round() raises ValueError, which its
	// drivers catch as the file's error. Build returns it and the
	// formats turn it into that error (NonFinite).
	ReasonNonFinite = "non_finite_coordinate"
)

// NonFinite is the error of a structure whose eligible atom b (the first:
// Atoms.Bad, Scratch.Bad) has a NaN or infinite coordinate; it wraps
// derrors.ErrPermanent.
func NonFinite(format, entryID string, b *BadAtom) error {
	return derrors.Permanent(fmt.Errorf("%s(%s): atom %s of residue %s %d has a non-finite coordinate (%v, %v, %v): "+
		"the reference's round() raises ValueError", format, entryID, b.Name, b.Chain, b.Num, b.X, b.Y, b.Z))
}

// Bad is the atom of the last Build's ReasonNonFinite (nil after any
// other outcome).
func (s *Scratch) Bad() *BadAtom { return s.atoms.Bad }

// BadAtom names an atom with a non-finite coordinate.
type BadAtom struct {
	Name, Chain string
	Num         int
	X, Y, Z     float64
}

// vocabNames are the 37 atom names the formats' vocabulary has.
const vocabNames = "C CA CB CD CD1 CD2 CE CE1 CE2 CE3 CG CG1 CG2 CH2 CZ CZ2 CZ3 " +
	"N ND1 ND2 NE NE1 NE2 NH1 NH2 NZ O OD1 OD2 OE1 OE2 OG OG1 OH SD SG OXT"

var vocabAtoms = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(vocabNames) {
		m[n] = true
	}
	return m
}()

// vocabIndex is n's index in vocabList, or -1 when n is not in the
// vocabulary (a string switch, without hashing).
func vocabIndex(n string) int {
	switch n {
	case "C":
		return 0
	case "CA":
		return 1
	case "CB":
		return 2
	case "CD":
		return 3
	case "CD1":
		return 4
	case "CD2":
		return 5
	case "CE":
		return 6
	case "CE1":
		return 7
	case "CE2":
		return 8
	case "CE3":
		return 9
	case "CG":
		return 10
	case "CG1":
		return 11
	case "CG2":
		return 12
	case "CH2":
		return 13
	case "CZ":
		return 14
	case "CZ2":
		return 15
	case "CZ3":
		return 16
	case "N":
		return 17
	case "ND1":
		return 18
	case "ND2":
		return 19
	case "NE":
		return 20
	case "NE1":
		return 21
	case "NE2":
		return 22
	case "NH1":
		return 23
	case "NH2":
		return 24
	case "NZ":
		return 25
	case "O":
		return 26
	case "OD1":
		return 27
	case "OD2":
		return 28
	case "OE1":
		return 29
	case "OE2":
		return 30
	case "OG":
		return 31
	case "OG1":
		return 32
	case "OH":
		return 33
	case "SD":
		return 34
	case "SG":
		return 35
	case "OXT":
		return 36
	}
	return -1
}

// vocabList are the vocabulary's names in vocabIndex's order, and vocabSp
// their tokens with a leading space.
var vocabList = strings.Fields(vocabNames)

var vocabSp = func() []string {
	sp := make([]string, len(vocabList))
	for i, n := range vocabList {
		if vocabIndex(n) != i {
			panic("coordfront: vocabIndex out of order at " + n)
		}
		sp[i] = " <" + n + ">"
	}
	return sp
}()

// Atoms are a document's eligible atoms: residue sequence order, then walk
// order within each residue.
type Atoms struct {
	Res    []int32      // the residue (analysis index) of each atom
	Vocab  []uint8      // its name's index in the vocabulary (Name, Atom16)
	Coord  [][3]float64 // its coordinates, as read
	Joined int          // residues that got at least one atom
	// Bad is the first atom with a non-finite coordinate; nil when none.
	Bad *BadAtom
	// DuplicateKeys counts polymer residues of the structure dropped because
	// an earlier one had the same (chain, number) key (the reference warns).
	DuplicateKeys int
}

// Name is atom i's trimmed name, e.g. "CA".
func (a *Atoms) Name(i int) string { return vocabList[a.Vocab[i]] }

// keyEntry is one polymer residue with atoms, in walk order: its chain
// key (as its index in the Scratch's chain list), its author number and
// its atoms' span of the walk's atoms.
type keyEntry struct {
	chain    int32
	from, to int32
	key      int64
}

// keyTable is one chain key's residues by author number: a dense table
// over [base, base+len(dense)) when the numbers are compact (the usual
// case: one entry per number, no hashing), else a map.
type keyTable struct {
	base   int64
	dense  []span // from < 0: no residue
	m      map[int64]span
	mapped bool
}

// maxDenseSlack bounds a dense table's length: 4 slots per residue plus
// this; wider number ranges use the map.
const maxDenseSlack = 1024

// get is the span of number k, if the chain key has a residue numbered k.
func (t *keyTable) get(k int64) (span, bool) {
	if t.mapped {
		sp, ok := t.m[k]
		return sp, ok
	}
	if i := uint64(k - t.base); i < uint64(len(t.dense)) {
		if sp := t.dense[i]; sp.from >= 0 {
			return sp, true
		}
	}
	return span{}, false
}

// put records number k's span unless the key already has one (the first
// residue of a key wins); false when it had one.
func (t *keyTable) put(k int64, sp span) bool {
	if t.mapped {
		if _, dup := t.m[k]; dup {
			return false
		}
		t.m[k] = sp
		return true
	}
	p := &t.dense[k-t.base]
	if p.from >= 0 {
		return false
	}
	*p = sp
	return true
}

// chainID returns the index of chain key c in s.chains, adding it.
func (s *Scratch) chainID(c string) int32 {
	for i, k := range s.chains {
		if k == c {
			return int32(i)
		}
	}
	s.chains = append(s.chains, c)
	return int32(len(s.chains) - 1)
}

// chainKey spells a chain id as the reference's join does: trimmed, "_"
// when blank (pyconfind's spelling).
func chainKey(name string) string {
	if s := strings.TrimSpace(name); s != "" {
		return s
	}
	return "_"
}

type span struct{ from, to int32 }

// JoinAtoms walks model 0's polymer residues (chain.get_polymer after
// setup_entities), keeps each residue's non-hydrogen atoms whose trimmed
// name is in the vocabulary (the first of each name: the first altloc
// wins), keys them by (chain, author number) without the insertion code
// (the first residue of a key wins), and gives every analysis residue the
// atoms of its key, so that residues sharing a key share its atoms.
func JoinAtoms(st *structure.Structure, a *contactsv1.Analysis) Atoms {
	var s Scratch
	s.joinAtoms(st, a)
	return s.atoms
}

// joinAtoms is JoinAtoms into s's reused memory (s.atoms): the walk's
// atoms and residue keys, then each chain key's table of numbers, then
// the analysis residues' lookups. When the analysis residues take the
// walk's spans in order, back to back (the usual case), the atoms are the
// walk's own (s.vocab, s.coords), not a copy.
func (s *Scratch) joinAtoms(st *structure.Structure, a *contactsv1.Analysis) {
	out := &s.atoms
	*out = Atoms{Res: out.Res[:0]}
	nonFinite := false // some walked atom has a non-finite coordinate
	vocab, coords, entries := s.vocab[:0], s.coords[:0], s.entries[:0]
	s.chains = s.chains[:0]
	if len(st.Models) > 0 {
		for ci := range st.Models[0].Chains {
			ch := &st.Models[0].Chains[ci]
			id := s.chainID(chainKey(ch.Name))
			pol := ch.Polymer()
			for ri := range pol {
				res := &pol[ri]
				from := len(vocab)
				var seen uint64 // the vocabulary indices the residue has
				// room for every atom of the residue, once
				vocab, coords = slices.Grow(vocab, len(res.Atoms)), slices.Grow(coords, len(res.Atoms))
				for k := range res.Atoms {
					at := &res.Atoms[k]
					if at.IsHydrogen() {
						continue
					}
					n := at.Name
					if len(n) == 0 || n[0] == ' ' || n[len(n)-1] == ' ' {
						n = strings.TrimSpace(n)
					}
					vi := vocabIndex(n)
					if vi < 0 || seen&(1<<vi) != 0 {
						continue
					}
					seen |= 1 << vi
					vocab = append(vocab, uint8(vi))
					// three stores into the slice (an appended [3]float64
					// literal goes through the stack, and its 16-byte
					// reload stalls on the 8-byte stores)
					coords = coords[:len(coords)+1]
					c := &coords[len(coords)-1]
					c[0], c[1], c[2] = at.X, at.Y, at.Z
					// x - x is 0 for a finite x, NaN otherwise
					if d := (at.X - at.X) + (at.Y - at.Y) + (at.Z - at.Z); d != 0 {
						nonFinite = true
					}
				}
				if len(vocab) == from {
					continue
				}
				entries = append(entries, keyEntry{chain: id, from: int32(from), to: int32(len(vocab)), key: int64(res.AuthSeq)})
			}
		}
	}
	s.vocab, s.coords, s.entries = vocab, coords, entries
	s.buildKeyTables(entries)
	for _, e := range entries {
		if !s.tables[e.chain].put(e.key, span{e.from, e.to}) {
			out.DuplicateKeys++
		}
	}
	// the lookups; while every span found starts where the last one ended
	// (at pos), the atoms are vocab[:pos] and coords[:pos]
	ov, oc := s.outVocab[:0], s.outCoord[:0]
	inOrder, pos := true, int32(0)
	last, lastID := "", int32(-1)
	var t *keyTable
	for r := range a.ResName {
		if c := a.ResChain[r]; c != last || lastID < 0 {
			last, lastID = c, s.chainID(chainKey(c))
			if int(lastID) >= len(s.tables) { // a chain key the structure lacks
				s.tables = append(s.tables, keyTable{})
				s.tables[lastID].reset(0, 0, 0)
			}
			t = &s.tables[lastID]
		}
		sp, ok := t.get(a.ResNum[r])
		if !ok {
			continue
		}
		out.Joined++
		for range sp.to - sp.from {
			out.Res = append(out.Res, int32(r))
		}
		if inOrder && sp.from == pos {
			pos = sp.to
			continue
		}
		if inOrder {
			inOrder = false
			ov, oc = append(ov, vocab[:pos]...), append(oc, coords[:pos]...)
		}
		ov, oc = append(ov, vocab[sp.from:sp.to]...), append(oc, coords[sp.from:sp.to]...)
	}
	s.outVocab, s.outCoord = ov, oc
	if inOrder {
		out.Vocab, out.Coord = vocab[:pos:pos], coords[:pos:pos]
	} else {
		out.Vocab, out.Coord = ov, oc
	}
	if nonFinite { // then only if a joined atom is one
		for i, c := range out.Coord {
			if d := (c[0] - c[0]) + (c[1] - c[1]) + (c[2] - c[2]); d != 0 {
				r := out.Res[i]
				out.Bad = &BadAtom{Name: out.Name(i), Chain: a.ResChain[r], Num: int(a.ResNum[r]), X: c[0], Y: c[1], Z: c[2]}
				break
			}
		}
	}
}

// buildKeyTables sizes and empties one table per chain key of s.chains
// for the entries' numbers: dense where they are compact.
func (s *Scratch) buildKeyTables(entries []keyEntry) {
	nc := len(s.chains)
	for len(s.tables) < nc {
		s.tables = append(s.tables, keyTable{})
	}
	s.tables = s.tables[:nc]
	lo, hi, cnt := grow(s.keyLo, nc), grow(s.keyHi, nc), grow(s.keyCnt, nc)
	s.keyLo, s.keyHi, s.keyCnt = lo, hi, cnt
	clear(cnt)
	for _, e := range entries {
		c := e.chain
		if cnt[c] == 0 || e.key < lo[c] {
			lo[c] = e.key
		}
		if cnt[c] == 0 || e.key > hi[c] {
			hi[c] = e.key
		}
		cnt[c]++
	}
	for c := range nc {
		s.tables[c].reset(lo[c], hi[c], cnt[c])
	}
}

// reset empties t for n numbers in [lo, hi] (none when n is 0).
func (t *keyTable) reset(lo, hi int64, n int) {
	t.base, t.mapped = lo, false
	if n == 0 {
		t.dense = t.dense[:0]
		return
	}
	if w := uint64(hi - lo); w >= uint64(4*n+maxDenseSlack) {
		t.mapped = true
		if t.m == nil {
			t.m = make(map[int64]span, n)
		}
		clear(t.m)
		return
	}
	t.dense = grow(t.dense, int(hi-lo)+1)
	for i := range t.dense {
		t.dense[i] = span{-1, -1}
	}
}

// Check applies the analysis-side rules in the reference's order: no
// residues, more than one chain. It returns a filter reason or "".
func Check(a *contactsv1.Analysis) string {
	if len(a.ResName) == 0 {
		return FilterNoProtein
	}
	for _, c := range a.ResChain[1:] {
		if c != a.ResChain[0] {
			return FilterMultiChain
		}
	}
	return ""
}
