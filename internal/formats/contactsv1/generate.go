package contactsv1

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

const (
	ringSize              = 2000 // position tokens <p0> .. <p1999>
	defaultContextLength  = 8192
	frameTokens           = 4 // <contacts-v1> <begin_sequence> ... <begin_statements> ... <end>
	tokensPerResidue      = 2 // <pX> <AA>
	tokensPerChainTermini = 4 // <n-term> <pS> <c-term> <pE>
	tokensPerContact      = 3 // <contact> <pX> <pY>
)

// Designed-in filter reasons (no document is written).
const (
	FilterTooShort       = "too_short"               // fewer than 2 residues
	FilterTooLong        = "too_long"                // more residues than ring indices (with the gaps several chains need)
	FilterSequenceBudget = "sequence_exceeds_budget" // frame + sequence section alone exceed the context length
)

// Config holds the generation knobs; the zero value is not valid, start from
// DefaultConfig.
type Config struct {
	// MinSeqSeparation: an intra-chain pair counts as a contact only when
	// seq_j - seq_i >= MinSeqSeparation. Inter-chain pairs always count.
	MinSeqSeparation int
	// MinContactDegree: contacts below it are never emitted.
	MinContactDegree float64
	// ContextLength is the token budget of a document.
	ContextLength int
	// Think inserts <think> runs between contact statements.
	Think bool
}

// DefaultConfig is the reference's default mode.
func DefaultConfig() Config {
	return Config{MinSeqSeparation: 6, MinContactDegree: 0.001, ContextLength: defaultContextLength}
}

// Document is one generated document with its metadata row.
type Document struct {
	Text                     string
	EntryID                  string
	SeqLen                   int
	GlobalPLDDT              *float64
	StartIndex               int
	NTermIndex, CTermIndex   int
	MinSeqSeparation         int
	ContactsPreFilter        int
	ContactsPassingMinDegree int
	ContactsEmitted          int
	ContactsExcluded         int
	Truncated                bool
	HighestContactDegree     *float64
	LowestNonzeroDegree      *float64
	LowestIncludedDegree     *float64
	NumTokens                int
	ThinkTokens              int
	ChainIDs                 []string
	ChainLengths             []int64
	NTermIndices             []int64
	CTermIndices             []int64
	PreFilterInterChain      int
	EmittedInterChain        int
	SHA1                     string
}

// Generate builds the contacts-v1 document of one analysis record. It
// returns the document, or a designed-in filter reason, or an error for a
// malformed record. It is deterministic in a.EntryID (the seed) and the
// record, and safe for concurrent use (each call has its own generator).
//
// Random draws, in this order: the think overhead (think only), the chain
// layout (ring order and gaps for several chains, then the start index), the
// shuffle of the sequence statements, the shuffle of the selected contacts,
// one orientation coin flip per contact, and the think-run slots (think
// only).
func Generate(a *Analysis, cfg Config) (*Document, string, error) {
	if err := Validate(a); err != nil {
		return nil, "", err
	}
	doc, filtered := generate(a, cfg)
	return doc, filtered, nil
}

// generate is Generate for an already validated record.
func generate(a *Analysis, cfg Config) (*Document, string) {
	segs, _ := chainSegments(a.ResChain)
	n, k := len(a.ResName), len(segs)
	if n < 2 {
		return nil, FilterTooShort
	}
	if !fitsRing(n, k) {
		return nil, FilterTooLong
	}
	fixed := frameTokens + tokensPerResidue*n + tokensPerChainTermini*k
	if fixed > cfg.ContextLength {
		return nil, FilterSequenceBudget
	}

	r := pyrandom.New(seed(a.EntryID))
	var think thinkPlan
	if cfg.Think {
		think = sampleThink(r)
	}
	nTerm, start := layout(r, segs, n)
	pos, chainOf, nTermIdx, cTermIdx := place(segs, nTerm, n)

	// Sequence statements: residue i is i; chain c's n-term is n+2c and its
	// c-term n+2c+1.
	stmts := make([]int32, n+2*k)
	for i := range stmts {
		stmts[i] = int32(i)
	}
	pyrandom.Shuffle(r, stmts)

	scan := scanContacts(a, chainOf, cfg.MinSeqSeparation)
	pre := scan.pre
	passing := make([]int32, 0, len(pre))
	for _, c := range pre {
		if a.Degree[c] >= cfg.MinContactDegree {
			passing = append(passing, c)
		}
	}
	// Strongest first; record order among equal degrees.
	passing, _ = rankByDegree(passing, a.Degree, nil)
	budget := max(0, (cfg.ContextLength-fixed-think.total())/tokensPerContact)
	selected := passing[:min(len(passing), budget)]
	var lowestIncluded *float64
	if len(selected) > 0 {
		v := a.Degree[selected[len(selected)-1]]
		lowestIncluded = &v
	}
	pyrandom.Shuffle(r, selected)
	flips := make([]bool, len(selected))
	emittedInter := 0
	for x, c := range selected {
		flips[x] = r.Random() < 0.5
		if chainOf[a.ContactI[c]] != chainOf[a.ContactJ[c]] {
			emittedInter++
		}
	}
	slots := assignSlots(r, think, len(selected))

	text, thinkTokens := render(a, pos, nTermIdx, cTermIdx, stmts, selected, flips, think, slots)
	sum := sha1.Sum([]byte(text))

	doc := &Document{
		Text:                     text,
		EntryID:                  a.EntryID,
		SeqLen:                   n,
		GlobalPLDDT:              a.GlobalPLDDT,
		StartIndex:               start,
		NTermIndex:               int(nTermIdx[0]),
		CTermIndex:               int(cTermIdx[0]),
		MinSeqSeparation:         cfg.MinSeqSeparation,
		ContactsPreFilter:        len(pre),
		ContactsPassingMinDegree: len(passing),
		ContactsEmitted:          len(selected),
		ContactsExcluded:         len(pre) - len(selected),
		Truncated:                len(passing) > len(selected),
		LowestIncludedDegree:     lowestIncluded,
		NumTokens:                fixed + tokensPerContact*len(selected) + thinkTokens,
		ThinkTokens:              thinkTokens,
		ChainIDs:                 make([]string, k),
		ChainLengths:             make([]int64, k),
		NTermIndices:             nTermIdx,
		CTermIndices:             cTermIdx,
		PreFilterInterChain:      scan.inter,
		EmittedInterChain:        emittedInter,
		SHA1:                     hex.EncodeToString(sum[:]),
	}
	if len(pre) > 0 {
		doc.HighestContactDegree, doc.LowestNonzeroDegree = &scan.highest, &scan.lowest
	}
	for c, s := range segs {
		doc.ChainIDs[c] = s.id
		doc.ChainLengths[c] = int64(s.length())
	}
	return doc, ""
}

// place puts the residues on the ring: each residue's position index and
// chain, and each chain's n- and c-terminus positions, from the chains'
// n-terminus positions nTerm.
func place(segs []segment, nTerm []int, n int) (pos, chainOf []int32, nTermIdx, cTermIdx []int64) {
	k := len(segs)
	pos = make([]int32, n)
	chainOf = make([]int32, n)
	nTermIdx = make([]int64, k)
	cTermIdx = make([]int64, k)
	for c, s := range segs {
		for i := s.start; i < s.stop; i++ {
			pos[i] = int32((nTerm[c] + i - s.start) % ringSize)
			chainOf[i] = int32(c)
		}
		nTermIdx[c] = int64(pos[s.start])
		cTermIdx[c] = int64(pos[s.stop-1])
	}
	return pos, chainOf, nTermIdx, cTermIdx
}

// contactScan is the contacts that exist under the separation rule.
type contactScan struct {
	pre             []int32 // in record order
	inter           int     // of them between chains
	highest, lowest float64 // their degrees' range (when pre is not empty)
}

// scanContacts finds the contacts that exist under the separation rule
// (every inter-chain contact, and intra-chain ones at least minSep apart).
func scanContacts(a *Analysis, chainOf []int32, minSep int) contactScan {
	var sc contactScan
	for c := range a.ContactI {
		i, j := a.ContactI[c], a.ContactJ[c]
		inter := chainOf[i] != chainOf[j]
		if !inter && j-i < int64(minSep) {
			continue
		}
		d := a.Degree[c]
		if len(sc.pre) == 0 || d > sc.highest {
			sc.highest = d
		}
		if len(sc.pre) == 0 || d < sc.lowest {
			sc.lowest = d
		}
		if inter {
			sc.inter++
		}
		sc.pre = append(sc.pre, int32(c))
	}
	return sc
}

// render writes the document: the shuffled sequence statements, then the
// selected contacts in their drawn order and orientation with the think
// runs in their slots. It returns the text and its think tokens.
func render(a *Analysis, pos []int32, nTermIdx, cTermIdx []int64, stmts, selected []int32, flips []bool, think thinkPlan, slots []int) (string, int) {
	n := len(pos)
	var b strings.Builder
	// Upper bound: " <p1999> <ALA>" is 14 bytes, " <contact> <p1999> <p1999>" 26.
	b.Grow(48 + 14*len(stmts) + 26*len(selected) + 8*think.total())
	b.WriteString("<contacts-v1> <begin_sequence>")
	for _, s := range stmts {
		b.WriteByte(' ')
		switch {
		case int(s) < n:
			b.WriteString(posToken[pos[s]])
			b.WriteByte(' ')
			b.WriteString(residueToken(a.ResName[s]))
		case (int(s)-n)%2 == 0:
			b.WriteString("<n-term> ")
			b.WriteString(posToken[nTermIdx[(int(s)-n)/2]])
		default:
			b.WriteString("<c-term> ")
			b.WriteString(posToken[cTermIdx[(int(s)-n)/2]])
		}
	}
	b.WriteString(" <begin_statements>")
	thinkTokens := think.initial
	writeThink(&b, think.initial)
	for x, c := range selected {
		if slots != nil {
			writeThink(&b, slots[x])
			thinkTokens += slots[x]
		}
		first, second := pos[a.ContactI[c]], pos[a.ContactJ[c]]
		if flips[x] {
			first, second = second, first
		}
		b.WriteString(" <contact> ")
		b.WriteString(posToken[first])
		b.WriteByte(' ')
		b.WriteString(posToken[second])
	}
	b.WriteString(" <end>")
	return b.String(), thinkTokens
}

func writeThink(b *strings.Builder, count int) {
	for range count {
		b.WriteString(" " + thinkToken)
	}
}

// seed is the reference's per-entry seed: the first 8 hex digits of the
// SHA-1 of the entry id, as an integer.
func seed(entryID string) uint64 {
	sum := sha1.Sum([]byte(entryID))
	return uint64(sum[0])<<24 | uint64(sum[1])<<16 | uint64(sum[2])<<8 | uint64(sum[3])
}

// posToken[i] is "<p{i}>".
var posToken = func() [ringSize]string {
	var t [ringSize]string
	for i := range t {
		t[i] = "<p" + strconv.Itoa(i) + ">"
	}
	return t
}()

// residueTokens maps every residue name pyconfind treats as protein to its
// canonical amino-acid token; modified residues become their parent amino
// acid. Anything else is <UNK>.
var residueTokens = func() map[string]string {
	m := map[string]string{}
	for _, aa := range []string{"ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
		"LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL", "UNK"} {
		m[aa] = "<" + aa + ">"
	}
	for mod, parent := range map[string]string{"HSD": "HIS", "HSE": "HIS", "HSC": "HIS", "HSP": "HIS",
		"HIP": "HIS", "MSE": "MET", "CSO": "CYS", "SEC": "CYS", "SEP": "SER", "TPO": "THR", "PTR": "TYR"} {
		m[mod] = "<" + parent + ">"
	}
	return m
}()

func residueToken(name string) string {
	if t, ok := residueTokens[name]; ok {
		return t
	}
	if t, ok := residueTokens[strings.ToUpper(strings.TrimSpace(name))]; ok {
		return t
	}
	return "<UNK>"
}
