package distancesv2

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/geom"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// Filter reasons: the designed-in outcomes that write no document.
// The reference reports the chain filters as errors ("no polymer chain",
// "expected single polymer chain, found N"); they are designed-in
// predicates of the data, not failures, so here they are counted.
const (
	FilteredTooShort   = "fewer than 2 residues"
	FilteredNoRoom     = "no room in the context"
	FilteredNoPolymer  = "no polymer chain"
	FilteredMultiChain = "more than one polymer chain"
)

// Statement kinds, in the order their contacts are drawn.
const (
	kindLong uint8 = iota
	kindMedium
	kindShort
	kindDistance
)

// stmt is one statement: a contact (i, j) or a distance between atoms ai of
// residue i and aj of residue j in distance bin bin (1-based). A contact has
// atoms noAtom and bin 0, whose tokens are empty.
type stmt struct {
	i, j   int32
	kind   uint8
	ai, aj uint8
	bin    uint16
}

// Doc is the outcome of one generation. Document aliases the Generator's
// buffer: it is valid until the Generator's next call.
type Doc struct {
	Document         []byte
	Filtered         string // non-empty when no document was written
	NumTokens        int
	ContactsEmitted  int
	DistancesEmitted int
	// Statements counts the statements by kind (long-, medium-,
	// short-range contact, distance) and Think the <think> tokens, as
	// serialize wrote them: the document's mix (format.Result.Mix).
	Statements [4]int
	Think      int
}

// Generator writes contacts-and-distances-v2 documents. It keeps scratch
// buffers between calls so that steady-state generation allocates little;
// it is not safe for concurrent use (use one per goroutine).
type Generator struct {
	opts        Options
	plddtTokens []string
	distTokens  []string
	distW       []wtok // "" then distTokens, as words (serialize.go)

	buf      []byte
	poolRes  []int32
	poolPts  []geom.Vec3
	lists    [3][]stmt
	stmts    []stmt
	ranks    []float64
	keys     []uint64 // rankKey of each rank
	order    []uint64 // statement indices by descending rank (low 32 bits)
	sortTmp  []uint64
	indices  []int32
	slots    []int32
	runs     []int
	sampleIx []int32
	posTok   []uint64 // " <p{i+1}>" as little-endian words (serialize.go)
	posLen   []uint8
	grid     contactGrid
	rng      *pyrandom.Rand

	// rankDelta is fixClusters's delta, or 0 when the ranks are computed
	// exactly (rank options so large or not finite that the approximation
	// would not pay, or tests)
	rankDelta      float64
	gaussC, gaussD pyrandom.GaussDraws // the draws behind the ranks
	nContacts      int                 // the statements whose ranks are in gaussC
	clusterTmp     []rankedIx
	clusters       int // clusters sorted by exact ranks so far (tests)
}

// rankDelta returns fixClusters's delta for o's ranks: 4 times the bound
// on the approximation's error, at least 1e-9 (about 10^4 times that bound
// for the default ranks; near ties that close are rare: 15 in 8,400 AFDB
// documents, TestApproxRanksSameDocuments). It is 0 (exact ranks) when
// that would be over 1e-3.
func rankDelta(o *Options) float64 {
	e := max(pyrandom.GaussApproxBound(o.ContactRankMean, o.ContactRankStd),
		pyrandom.GaussApproxBound(o.DistanceRankMean, o.DistanceRankStd))
	if !(e <= 1e-3/4) {
		return 0
	}
	return max(4*e, 1e-9)
}

// exactRank is the exact rank of statement i (the order of step 7).
func (g *Generator) exactRank(i int) float64 {
	if i < g.nContacts {
		return g.gaussC.Exact(i)
	}
	return g.gaussD.Exact(i - g.nContacts)
}

// NewGenerator returns a Generator for opts (see Options.Validate).
func NewGenerator(opts Options) *Generator {
	g := &Generator{opts: opts, rankDelta: rankDelta(&opts)}
	edges := opts.PLDDTBinEdges
	for i := 0; i <= len(edges); i++ {
		switch {
		case i == 0 && len(edges) > 0:
			g.plddtTokens = append(g.plddtTokens, "<plddt_lt"+fmtEdge(edges[0])+">")
		case i == len(edges):
			lo := "0"
			if i > 0 {
				lo = fmtEdge(edges[i-1])
			}
			g.plddtTokens = append(g.plddtTokens, "<plddt_"+lo+"_100>")
		default:
			g.plddtTokens = append(g.plddtTokens, "<plddt_"+fmtEdge(edges[i-1])+"_"+fmtEdge(edges[i])+">")
		}
	}
	for b := 1; b <= opts.DistanceBins; b++ {
		g.distTokens = append(g.distTokens, " <d"+strconv.FormatFloat(float64(b)*opts.DistanceBinWidth, 'f', 1, 64)+">")
	}
	g.distW = wtoks(append([]string{""}, g.distTokens...)) // bin 0: none
	return g
}

func fmtEdge(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Seed is the reference's document seed: the first 32 bits (big-endian) of
// sha1(entryID).
func Seed(entryID string) uint32 {
	sum := sha1.Sum([]byte(entryID))
	return binary.BigEndian.Uint32(sum[:4])
}

// geomDraw is the reference's Geom(p): ceil(log(1 - random()) / log(1 - p)).
func geomDraw(r *pyrandom.Rand, p float64) int {
	if p >= 1 {
		return 1
	}
	u := 1 - r.Random()
	return int(math.Ceil(pyrandom.Log(u) / pyrandom.Log(1-p)))
}

// Generate writes the document of p seeded by entryID (spec sections 2-3).
func (g *Generator) Generate(p *Protein, entryID string) Doc {
	o := &g.opts
	n := len(p.Res)
	if n < 2 {
		return Doc{Filtered: FilteredTooShort}
	}
	if g.rng == nil {
		g.rng = pyrandom.New(0)
	}
	r := g.rng
	r.Reseed(uint64(Seed(entryID)))

	// 1. Think budget.
	k1 := 0
	if r.Random() < o.ThinkProb {
		k1 = geomDraw(r, o.ThinkP)
	}
	nAdd := max(int(r.Uniform(o.ExtraRunsMin, o.ExtraRunsMax)), 0)
	g.runs = g.runs[:0]
	total := k1
	for range nAdd {
		run := geomDraw(r, o.ExtraRunP)
		g.runs = append(g.runs, run)
		total += run
	}

	// 2. Room (the reference finds the contacts first; finding them draws
	// nothing, so the order does not matter).
	available := o.ContextLength - (5 + n + total)
	if available <= 0 {
		return Doc{Filtered: FilteredNoRoom}
	}

	// 3. Counts, and the contacts of the kinds that are drawn from.
	var want, counts [3]int
	for k := range want {
		f := max(0, r.Uniform(o.FracMin, o.FracMax))
		want[k] = int(float64(available)*f) / 3
	}
	g.contacts(p, want)
	for k := range counts {
		counts[k] = min(want[k], len(g.lists[k]))
	}
	nDistance := floorDiv(available-3*(counts[0]+counts[1]+counts[2]), 6)

	// 5. Sample the contacts.
	g.stmts = g.stmts[:0]
	for k, c := range counts {
		if c > 0 {
			g.sampleIx = pyrandom.SampleIndices(r, g.sampleIx[:0], len(g.lists[k]), c)
			for _, ix := range g.sampleIx {
				g.stmts = append(g.stmts, g.lists[k][ix])
			}
		}
	}
	nContacts := len(g.stmts)

	// 6. Distance statements.
	g.distances(p, r, nDistance)

	// 7. Ranks and the stable sort by descending rank.
	ns := len(g.stmts)
	g.ranks = slices.Grow(g.ranks[:0], ns)[:ns]
	// The ranks only order the statements: sorted by approximate ranks
	// (the same draws), with the near ties then sorted by exact ranks
	// (fixClusters), the order is the exact ranks' order.
	approx := g.rankDelta > 0
	if approx {
		r.FillGaussApprox(g.ranks[:nContacts], o.ContactRankMean, o.ContactRankStd, &g.gaussC)
		r.FillGaussApprox(g.ranks[nContacts:], o.DistanceRankMean, o.DistanceRankStd, &g.gaussD)
	} else {
		r.FillGauss(g.ranks[:nContacts], o.ContactRankMean, o.ContactRankStd)
		r.FillGauss(g.ranks[nContacts:], o.DistanceRankMean, o.DistanceRankStd)
	}
	// A stable sort by -rank.
	g.keys = slices.Grow(g.keys[:0], ns)[:ns]
	for i, rk := range g.ranks {
		g.keys[i] = rankKey(rk)
	}
	g.order = slices.Grow(g.order[:0], ns)
	g.sortTmp = slices.Grow(g.sortTmp[:0], ns)
	g.order = sortRanked(g.keys, g.order[:ns], g.sortTmp[:ns])
	if approx {
		g.nContacts = nContacts
		var n int
		g.clusterTmp, n = fixClusters(g.order, g.ranks, g.rankDelta, g.exactRank, g.clusterTmp)
		g.clusters += n
	}

	// 8. pLDDT token placement.
	plddt := g.plddtToken(p.GlobalPLDDT)
	atEnd := r.Random() < o.PLDDTAtEndProb
	insert := -1
	if !atEnd {
		insert = r.RandInt(0, ns)
	}

	// 9. Think slots.
	g.slots = slices.Grow(g.slots[:0], ns)[:ns]
	clear(g.slots)
	if ns > 0 {
		if k1 > 0 {
			g.slots[0] += int32(k1)
		}
		for _, run := range g.runs {
			g.slots[r.RandInt(0, ns-1)] += int32(run)
		}
	}
	return g.serialize(p, plddt, k1, insert, atEnd, nContacts)
}

// ceilInt is int(math.Ceil(q)), without the call for the usual
// 0 <= q < 2^52.
func ceilInt(q float64) int {
	if q >= 0 && q < 1<<52 {
		t := int(q)
		if float64(t) < q {
			t++
		}
		return t
	}
	return int(math.Ceil(q))
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (g *Generator) plddtToken(v float64) string {
	edges := g.opts.PLDDTBinEdges
	i := 0
	for i < len(edges) && !(v < edges[i]) {
		i++
	}
	return g.plddtTokens[i]
}

// contacts fills g.lists[k], for each kind k with want[k] > 0, with the
// kind's contacts of the pool in (i, j) row-major order. The other lists
// stay empty: no statement is drawn from them, so they need not be found.
// Without long-range contacts to find, only residues near in the chain can
// pair, and they are found without a grid.
func (g *Generator) contacts(p *Protein, want [3]int) {
	o := &g.opts
	for k := range g.lists {
		g.lists[k] = g.lists[k][:0]
	}
	if want == [3]int{} {
		return
	}
	g.poolRes, g.poolPts = g.poolRes[:0], g.poolPts[:0]
	for i, rep := range p.Rep {
		if rep >= 0 && p.PLDDT[i] >= o.ResiduePLDDTMin {
			g.poolRes = append(g.poolRes, int32(i))
			g.poolPts = append(g.poolPts, p.AtomPos[rep])
		}
	}
	pool := g.poolRes
	minSep, maxSep := int32(o.MinSeparation), int32(o.LongRange)
	if want[kindMedium] == 0 {
		maxSep = min(maxSep, int32(o.MediumRange))
	}
	var pairs []uint64
	if want[kindLong] == 0 && o.ContactCutoff > 0 && !math.IsInf(o.ContactCutoff, 1) && maxSep-minSep <= maxChainWindow {
		pairs = g.grid.chain(g.poolPts, pool, o.ContactCutoff, minSep, maxSep)
	} else {
		pairs = g.grid.find(g.poolPts, pool, o.ContactCutoff, minSep)
	}
	for _, ij := range pairs {
		i, j := pool[ij>>32], pool[uint32(ij)]
		kind := kindShort
		switch sep := int(j - i); {
		case sep >= o.LongRange:
			kind = kindLong
		case sep >= o.MediumRange:
			kind = kindMedium
		}
		if want[kind] > 0 {
			g.lists[kind] = append(g.lists[kind], stmt{i: i, j: j, kind: kind, ai: noAtom, aj: noAtom})
		}
	}
}

// maxChainWindow bounds the residue separations that contacts finds
// without a grid.
const maxChainWindow = 64

// distances appends up to nDistance distance statements (step 6).
func (g *Generator) distances(p *Protein, r *pyrandom.Rand, nDistance int) {
	o := &g.opts
	g.indices = g.indices[:0]
	for i := range p.Res {
		if p.AtomStart[i+1] > p.AtomStart[i] {
			g.indices = append(g.indices, int32(i))
		}
	}
	if len(g.indices) < 2 {
		return
	}
	nIdx := len(g.indices)
	// d/w is d*(1/w) exactly when 1/w is exact (w a power of two)
	w := o.DistanceBinWidth
	inv := 1 / w
	frac, _ := math.Frexp(w)
	mul := frac == 0.5 && !math.IsInf(inv, 0)
	base := len(g.stmts)
	out := slices.Grow(g.stmts, nDistance)[:base+nDistance]
	k := base
	for range nDistance {
		var i, j int32
		ok := false
		for try := 0; try <= o.DistanceRedraws; try++ {
			a, b := pyrandom.Sample2(r, nIdx)
			i, j = min(g.indices[a], g.indices[b]), max(g.indices[a], g.indices[b])
			if int(j-i) > o.DistanceMinSep {
				ok = true
				break
			}
		}
		if !ok {
			continue
		}
		si, sj := p.AtomStart[i], p.AtomStart[j]
		ai := si + int32(r.RandBelow(int(p.AtomStart[i+1]-si)))
		aj := sj + int32(r.RandBelow(int(p.AtomStart[j+1]-sj)))
		pa, pb := &p.AtomPos[ai], &p.AtomPos[aj]
		dx, dy, dz := pa[0]-pb[0], pa[1]-pb[1], pa[2]-pb[2]
		d := math.Sqrt(float64(dx*dx) + float64(dy*dy) + float64(dz*dz))
		var q float64
		if mul {
			q = d * inv
		} else {
			q = d / w
		}
		bin := min(max(ceilInt(q), 1), o.DistanceBins)
		// field by field: a struct literal is built on the stack with
		// narrow stores and copied with a wide load, which stalls
		st := &out[k]
		st.i, st.j, st.kind, st.ai, st.aj, st.bin = i, j, kindDistance, p.AtomName[ai], p.AtomName[aj], uint16(bin)
		k++
	}
	g.stmts = out[:k]
}
