package coordinatesv1

import (
	"fmt"
	"math"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// DocType is the document's first token.
const DocType = "<contacts-and-coordinates-v1>"

// DefaultContextLength is the reference's context length for this format.
const DefaultContextLength = 32768

const mentionHeader = 2 // <pX> <ATOM>

// binWidths are the places' bin widths, coarsest first (hundreds .. tenths).
var binWidths = [4]float64{100.0, 10.0, 1.0, 0.1}

// Config is GenerationConfig plus the context length; start from
// DefaultConfig.
type Config struct {
	Front                        coordfront.Config
	MaxDepth                     int     // finest place emitted, 1..4
	NoiseDivisor                 float64 // sigma_d = bin width / this
	DepthKernelEpsilon           float64 // floor weight of the depth kernel
	ForceFullPrecisionFirstEvent bool    // the first event gets depth MaxDepth
}

// DefaultConfig is the reference's defaults.
func DefaultConfig() Config {
	return Config{Front: coordfront.DefaultConfig(DefaultContextLength), MaxDepth: 3, NoiseDivisor: 4.0,
		DepthKernelEpsilon: 0.05, ForceFullPrecisionFirstEvent: true}
}

// Validate checks the knobs the reference checks, and the ones whose bad
// values would make generation meaningless.
func (c Config) Validate() error {
	if c.MaxDepth < 1 || c.MaxDepth > len(binWidths) {
		return fmt.Errorf("max_depth must be in [1, %d], got %d", len(binWidths), c.MaxDepth)
	}
	if !(c.NoiseDivisor > 0) {
		return fmt.Errorf("noise_divisor must be > 0, got %v", c.NoiseDivisor)
	}
	return coordfront.ValidateConfig(c.Front)
}

// Document is one generated document and its metadata row.
type Document struct {
	Text                      string
	EntryID                   string
	SeqLen                    int
	GlobalPLDDT               *float64
	StartIndex                int
	NTermIndex, CTermIndex    int
	MinSeqSeparation          int
	NumContactsEligible       int
	ContactsEmitted           int
	NumEligibleAtoms          int
	NumEvents                 int
	NumDistinctAtomsMentioned int
	MaxDepth                  int
	DepthCounts               []int
	Quat                      [4]float64
	Trans                     [3]float64
	Truncated                 bool
	NumTokens                 int
	CoordinateTokens          int // the coordinate section's tokens
	// DuplicateKeys counts residues whose (chain, number) key an earlier
	// residue had (the reference warns and keeps the first one's atoms).
	DuplicateKeys int
}

// Generate builds the document of one structure from its analysis record
// (the residues and contact degrees ConFind computed from st). entryID is
// the seed. It returns the document, or a designed-in filter reason.
// Deterministic and safe for concurrent use.
func Generate(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg Config) (*Document, string) {
	return new(Generator).Generate(st, a, entryID, cfg)
}

// Generator is Generate with memory reused from one document to the next.
// A Generator must not be used by two goroutines at once.
type Generator struct {
	front     coordfront.Scratch
	events    []event
	xs, us    []float64
	zs        []float64
	mentioned []bool
	k         kernelScratch
}

// useKernel selects the C kernels where they are built in (kernelOK);
// tests turn it off to run the Go loops they are checked against.
var useKernel = true

// marginFloor and tolFloor widen kernel3's margin and the approximate
// Gaussians' error bounds, so that tests can send most depths to depth3
// and most values to their exact recomputation (both 0 in production:
// wider only costs time).
var marginFloor, tolFloor float64

// Generate is the package's Generate, reusing g's memory.
func (g *Generator) Generate(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg Config) (*Document, string) {
	f, filtered := g.front.Build(st, a, entryID, cfg.Front)
	if filtered != "" {
		return nil, filtered
	}
	d := &Document{EntryID: entryID, SeqLen: f.L, GlobalPLDDT: a.GlobalPLDDT, StartIndex: f.Start,
		NTermIndex: f.Pos(0), CTermIndex: f.Pos(f.L - 1), MinSeqSeparation: cfg.Front.MinSeqSeparation,
		NumContactsEligible: f.PoolSize, ContactsEmitted: len(f.Contacts), NumEligibleAtoms: len(f.Placed),
		MaxDepth: cfg.MaxDepth, DepthCounts: make([]int, cfg.MaxDepth), Quat: f.Quat, Trans: f.Trans,
		DuplicateKeys: f.Atoms.DuplicateKeys}
	w := &g.front.W
	*w = coordfront.Writer{Buf: w.Buf[:0]}
	f.WritePrefix(w, DocType, a.ResName)
	budget := cfg.Front.ContextLength - f.FixedTokens() - coordfront.ContactStatement*len(f.Contacts)
	doc := g.writeCoordinates(f, cfg, budget, w, d)
	doc.Tok(coordfront.TokEnd)
	if len(doc.Buf)+coordfront.PutSlack != cap(doc.Buf) {
		panic("coordinatesv1: the document's length was reckoned wrong")
	}
	d.NumTokens = doc.Tokens
	d.Text = coordfront.Text(doc.Buf) // doc's buffer is the document's alone
	return d, ""
}

// endBytes is the length of " <end>".
const endBytes = len(" " + coordfront.TokEnd)

// xyzBytes is the length of every " <xyz-DDD>" token.
const xyzBytes = len(" <xyz-000>")

// event is one mention event: its atom and its depth. Its three noise
// values are the event's consecutive values of the Gaussian stream.
type event struct {
	atom  int32
	depth int8
}

// writeCoordinates is the mention-event loop: per event an atom
// (randrange), a depth (none for the first event, else one random() against
// the depth kernel), then, if the event fits, three Gaussians and the
// event's tokens. The event that does not fit has had its atom and depth
// drawn and ends the section.
//
// Which draws happen never depends on a Gaussian's value, so the loop only
// takes the draws (drawEvents); the values are then computed in one batch
// with the approximate log, sin and cos (pyrandom.GaussPairsApprox), and
// each one whose rounding the approximation could change is recomputed
// exactly (writeEvents).
//
// The events' lengths in bytes are counted as they are drawn, so the
// document (w's prefix, the section and the end token) is written into a
// buffer of its exact length (Writer.Detach), which is returned: its
// memory becomes the document's text, without a copy.
//
// For max_depth 3 (the default) both halves run as C kernels where cgo
// is on (kernel_cgo.go): the same draws and the same bytes, checked
// against these Go loops by TestKernels.
func (g *Generator) writeCoordinates(f *coordfront.Front, cfg Config, budget int, w *coordfront.Writer, d *Document) coordfront.Writer {
	m := len(f.Placed)
	D := cfg.MaxDepth
	var sigmas [4]float64
	for k := range D {
		sigmas[k] = binWidths[k] / cfg.NoiseDivisor
	}
	// the pairs of draws (x, u) of the Gaussian stream: value v of the
	// section is pair (z0+v)/2's cos (even) or sin (odd) value, where z0
	// is 1 when the section starts with gauss()'s cached value
	g.events, g.xs, g.us = g.events[:0], g.xs[:0], g.us[:0]
	z0 := 0
	if dr, ok := f.Normals.Cached(); ok {
		g.xs, g.us, z0 = append(g.xs, dr.X), append(g.us, dr.U), 1
	}
	var sec section
	if m > 0 && budget > 0 {
		if kernelOK && D == 3 && useKernel {
			sec = g.drawEventsC(f, cfg, budget)
		} else {
			sec = g.drawEvents(f, cfg, budget)
		}
	}
	d.Truncated = sec.truncated
	events, xs, us := g.events, g.xs, g.us
	out := w.Detach(sec.hdrBytes + xyzBytes*(sec.used-mentionHeader*len(events)) + endBytes)
	w = &out
	zs := grow(g.zs, 2*len(xs))
	g.zs = zs
	pyrandom.GaussPairsApprox(xs, us, zs)
	mentioned := grow(g.mentioned, m)
	g.mentioned = mentioned
	clear(mentioned)
	scale, top := coordScale[D], maxCoord[D]
	// the approximation's error bound at each depth (placed values are
	// within [0, 1000]), in units of the rounded value
	var tols [4]float64
	for k := range D {
		tols[k] = max(scale*pyrandom.GaussApproxBound(1000, sigmas[k]), tolFloor)
	}
	wr := writing{f: f, D: D, z0: z0, sigmas: sigmas, tols: tols, scale: scale, top: top}
	k := 0
	if kernelOK && D == 3 && useKernel {
		k = g.writeEventsC(&wr, w, d)
	}
	g.writeEvents(&wr, k, w, d)
	d.NumEvents = len(events)
	d.CoordinateTokens = sec.used
	return out
}

// section is what drawing the events found: the tokens they take, their
// <pX> <ATOM> bytes, and whether an event did not fit.
type section struct {
	used, hdrBytes int
	truncated      bool
}

// drawEvents takes the events' draws into g.events, and their Gaussian
// pairs' (x, u) after g.xs and g.us, until an event does not fit.
func (g *Generator) drawEvents(f *coordfront.Front, cfg Config, budget int) section {
	var sec section
	k3 := newKernel3(budget, cfg.DepthKernelEpsilon)
	for !g.drawEvent(f, cfg, k3, budget, &sec) {
	}
	return sec
}

// drawEvent draws one event: its atom and depth, and, if it fits in
// sec, its Gaussian pairs, appended to g's arrays and counted in sec. It
// reports whether the event did not fit (sec.truncated: the section ends).
func (g *Generator) drawEvent(f *coordfront.Front, cfg Config, k3 kernel3, budget int, sec *section) bool {
	m, D := len(f.Placed), cfg.MaxDepth
	ai := f.Rand.RandBelow(m)
	depth := D
	if !(len(g.events) == 0 && cfg.ForceFullPrecisionFirstEvent) {
		if D == 3 {
			depth = k3.sample(f.Rand.Random(), sec.used)
		} else {
			depth = sampleDepth(f, float64(sec.used)/float64(budget), cfg)
		}
	}
	cost := mentionHeader + depth
	if sec.used+cost > budget {
		sec.truncated = true
		return true
	}
	g.xs, g.us = f.Normals.AppendPairs3(g.xs, g.us)
	g.events = append(g.events, event{atom: int32(ai), depth: int8(depth)})
	sec.used += cost
	sec.hdrBytes += int(coordfront.Position16(f.Pos(int(f.Atoms.Res[ai])))[15]) + int(f.Atoms.Atom16(ai)[15])
	return false
}

// writing is what writing the events needs besides g's arrays: the
// front, the depths' noise and error bounds, and the rounding's scale and
// clamp.
type writing struct {
	f            *coordfront.Front
	D, z0        int
	sigmas, tols [4]float64
	scale, top   float64
}

// writeEvents writes events k.. of g.events to w, counting them in d.
func (g *Generator) writeEvents(wr *writing, k int, w *coordfront.Writer, d *Document) {
	f, D, z0 := wr.f, wr.D, wr.z0
	xs, us, zs, mentioned := g.xs, g.us, g.zs, g.mentioned
	scale, top := wr.scale, wr.top
	for ; k < len(g.events); k++ {
		e := g.events[k]
		p := &f.Placed[e.atom]
		s, tol := wr.sigmas[e.depth-1], wr.tols[e.depth-1]
		zi := z0 + 3*k
		var n [3]int
		for j := range 3 {
			v := p[j] + float64(0.0+float64(zs[zi+j]*s))
			r, ok := coordfront.ClampRoundSafe(v, top, scale, tol)
			if !ok {
				exact := coordfront.Draw{X: xs[(zi+j)/2], U: us[(zi+j)/2], Second: (zi+j)&1 == 1}.Exact()
				v = p[j] + float64(0.0+float64(exact*s))
				r = math.RoundToEven(float64(min(top, max(0.0, v)) * scale))
			}
			n[j] = int(r)
		}
		w.Put(coordfront.Position16(f.Pos(int(f.Atoms.Res[e.atom]))))
		w.Put(f.Atoms.Atom16(int(e.atom)))
		// the digits of n, coarsest first, are the last D of its four
		dx, dy, dz := &digits[n[0]], &digits[n[1]], &digits[n[2]]
		if D == 3 {
			w.PutXYZ3(100*int(dx[1])+10*int(dy[1])+int(dz[1]), 100*int(dx[2])+10*int(dy[2])+int(dz[2]),
				100*int(dx[3])+10*int(dy[3])+int(dz[3]), int(e.depth))
		} else {
			for pl := 4 - D; pl < 4-D+int(e.depth); pl++ {
				w.Put(coordfront.XYZ16(100*int(dx[pl]) + 10*int(dy[pl]) + int(dz[pl])))
			}
		}
		d.DepthCounts[e.depth-1]++
		if !mentioned[e.atom] {
			mentioned[e.atom] = true
			d.NumDistinctAtomsMentioned++
		}
	}
}

// digits are the four decimal digits of 0..9999, thousands first.
var digits = func() *[10000][4]uint8 {
	var t [10000][4]uint8
	for n := range t {
		t[n] = [4]uint8{uint8(n / 1000), uint8(n / 100 % 10), uint8(n / 10 % 10), uint8(n % 10)}
	}
	return &t
}()

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// sampleDepth draws a depth from the coarse-to-fine kernel at budget
// fraction t: centers evenly spaced on [0, 1], raw weight
// max(0, 1 - 3|t - c|) + epsilon, one random() against their fsum.
func sampleDepth(f *coordfront.Front, t float64, cfg Config) int {
	D := cfg.MaxDepth
	if D == 1 {
		return 1
	}
	var wbuf [4]float64
	ws := wbuf[:D]
	for k := range D {
		c := float64(k) / float64(D-1)
		ws[k] = max(0.0, 1.0-3.0*math.Abs(t-c)) + cfg.DepthKernelEpsilon
	}
	var total float64
	if D == 3 {
		total = coordfront.Fsum3(ws[0], ws[1], ws[2])
	} else {
		total = coordfront.Fsum(ws)
	}
	r := f.Rand.Random() * total
	cum := 0.0
	for k, wt := range ws {
		cum += wt
		if r < cum {
			return k + 1
		}
	}
	return D
}

// kernel3 is sampleDepth for MaxDepth 3 at a budget: its depth for one
// random() value u at used tokens is depth3's, mostly without depth3's
// division and fsum. Those lie on the event loop's critical path (the
// next event's fraction t waits on this event's depth), so sample first
// decides with t = used * (1/budget) and a plain sum, which are within a
// few ulps of depth3's values: when u*total lies farther than margin from
// both cumulative weights, no error that small can change the outcome;
// otherwise (never, in practice) it calls depth3.
type kernel3 struct {
	inv, eps, margin float64
	budget           int
}

func newKernel3(budget int, eps float64) kernel3 {
	// every value below is at most 3*(1 + |eps|) in magnitude and carries
	// at most ~40 roundings of 2^-53 of it (t's error is 2^-51, times the
	// weights' slope 3); the margin is 2^-40 times that scale: far more
	margin := max(0x1p-40*3*(1+math.Abs(eps)), marginFloor)
	return kernel3{inv: 1 / float64(budget), eps: eps, margin: margin, budget: budget}
}

// sample is depth3(u, used/budget, eps).
func (k *kernel3) sample(u float64, used int) int {
	t := float64(used) * k.inv
	w0 := max(0.0, 1.0-3.0*math.Abs(t-0.0)) + k.eps
	w1 := max(0.0, 1.0-3.0*math.Abs(t-0.5)) + k.eps
	w2 := max(0.0, 1.0-3.0*math.Abs(t-1.0)) + k.eps
	x := u * (w0 + w1 + w2)
	c1 := w0
	c2 := c1 + w1
	if math.Abs(x-c1) > k.margin && math.Abs(x-c2) > k.margin { // false for NaN
		return 3 - int(math.Float64bits(x-c1)>>63) - int(math.Float64bits(x-c2)>>63)
	}
	return depth3(u, float64(used)/float64(k.budget), k.eps)
}

// depth3 is sampleDepth for MaxDepth 3 (the centers 0, 0.5 and 1), the
// same operations written out, for the random() value u.
func depth3(u, t, eps float64) int {
	w0 := max(0.0, 1.0-3.0*math.Abs(t-0.0)) + eps
	w1 := max(0.0, 1.0-3.0*math.Abs(t-0.5)) + eps
	w2 := max(0.0, 1.0-3.0*math.Abs(t-1.0)) + eps
	x := u * coordfront.Fsum3(w0, w1, w2)
	c1 := 0.0 + w0
	c2 := c1 + w1
	// 1 if x < c1, else 2 if x < c2, else 3 (c1 <= c2), without branches:
	// x >= c is the sign bit of x - c clear (exact: zero only when equal)
	return 3 - int(math.Float64bits(x-c1)>>63) - int(math.Float64bits(x-c2)>>63)
}

// coordScale and maxCoord are the reference's 10**(D-3) and
// (10**D - 1)/scale for D = 1..4.
var coordScale, maxCoord = func() ([5]float64, [5]float64) {
	scale := [5]float64{0, 0.01, 0.1, 1, 10}
	var top [5]float64
	for d := 1; d <= 4; d++ {
		top[d] = float64(int(math.Pow10(d))-1) / scale[d] // a float64 division, as Python's
	}
	return scale, top
}()
