package ccoordv1

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
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
	SHA1                      string
	// DuplicateKeys counts residues whose (chain, number) key an earlier
	// residue had (the reference warns and keeps the first one's atoms).
	DuplicateKeys int
}

// Generate builds the document of one structure from its analysis record
// (the residues and contact degrees ConFind computed from st). entryID is
// the seed. It returns the document, or a designed-in filter reason.
// Deterministic and safe for concurrent use.
func Generate(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg Config) (*Document, string) {
	f, filtered := coordfront.Build(st, a, entryID, cfg.Front)
	if filtered != "" {
		return nil, filtered
	}
	d := &Document{EntryID: entryID, SeqLen: f.L, GlobalPLDDT: a.GlobalPLDDT, StartIndex: f.Start,
		NTermIndex: f.Pos(0), CTermIndex: f.Pos(f.L - 1), MinSeqSeparation: cfg.Front.MinSeqSeparation,
		NumContactsEligible: f.PoolSize, ContactsEmitted: len(f.Contacts), NumEligibleAtoms: len(f.Placed),
		MaxDepth: cfg.MaxDepth, DepthCounts: make([]int, cfg.MaxDepth), Quat: f.Quat, Trans: f.Trans,
		DuplicateKeys: f.Atoms.DuplicateKeys}
	w := &coordfront.Writer{Buf: make([]byte, 0, 9*cfg.Front.ContextLength)}
	f.WritePrefix(w, DocType, a.ResName)
	budget := cfg.Front.ContextLength - f.FixedTokens() - coordfront.ContactStatement*len(f.Contacts)
	writeCoordinates(f, cfg, budget, w, d)
	w.Tok(coordfront.TokEnd)
	d.NumTokens = w.Tokens
	sum := sha1.Sum(w.Buf)
	d.SHA1 = hex.EncodeToString(sum[:])
	d.Text = string(w.Buf)
	return d, ""
}

// writeCoordinates is the mention-event loop: per event an atom
// (randrange), a depth (none for the first event, else one random() against
// the depth kernel), then, if the event fits, three Gaussians and the
// event's tokens. The event that does not fit has had its atom and depth
// drawn and ends the section.
func writeCoordinates(f *coordfront.Front, cfg Config, budget int, w *coordfront.Writer, d *Document) {
	m := len(f.Placed)
	D := cfg.MaxDepth
	var sigmas [4]float64
	for k := range D {
		sigmas[k] = binWidths[k] / cfg.NoiseDivisor
	}
	mentioned := make([]bool, m)
	used := 0
	for m > 0 && budget > 0 {
		ai := f.Rand.RandBelow(m)
		depth := D
		if !(d.NumEvents == 0 && cfg.ForceFullPrecisionFirstEvent) {
			depth = sampleDepth(f, float64(used)/float64(budget), cfg)
		}
		cost := mentionHeader + depth
		if used+cost > budget {
			d.Truncated = true
			break
		}
		p := f.Placed[ai]
		s := sigmas[depth-1]
		nx := p[0] + f.Normals.Gauss(s)
		ny := p[1] + f.Normals.Gauss(s)
		nz := p[2] + f.Normals.Gauss(s)
		w.Tok(coordfront.PositionToken(f.Pos(int(f.Atoms.Res[ai]))))
		w.Tok(coordfront.AtomToken(f.Atoms.Name[ai]))
		dx, dy, dz := digits(nx, D), digits(ny, D), digits(nz, D)
		for k := range depth {
			w.Tok(coordfront.XYZToken(dx[k], dy[k], dz[k]))
		}
		used += cost
		d.DepthCounts[depth-1]++
		if !mentioned[ai] {
			mentioned[ai] = true
			d.NumDistinctAtomsMentioned++
		}
		d.NumEvents++
	}
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
	r := f.Rand.Random() * coordfront.Fsum(ws)
	cum := 0.0
	for k, wt := range ws {
		cum += wt
		if r < cum {
			return k + 1
		}
	}
	return D
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

// digits are the D decimal digits of a clamped coordinate, coarsest first.
func digits(v float64, D int) [4]int {
	c := min(maxCoord[D], max(0.0, v))
	n := int(math.RoundToEven(float64(c * coordScale[D])))
	var out [4]int
	div := 1
	for k := D - 1; k >= 0; k-- {
		out[k] = (n / div) % 10
		div *= 10
	}
	return out
}

// Metadata is the reference's metadata_row without the document, the
// token count and the sha1: the golden files' metadata object.
func (d *Document) Metadata() map[string]any {
	m := map[string]any{
		"seq_len": d.SeqLen, "global_plddt": floatOrNil(d.GlobalPLDDT), "start_index": d.StartIndex,
		"n_term_index": d.NTermIndex, "c_term_index": d.CTermIndex, "min_seq_separation": d.MinSeqSeparation,
		"num_contacts_eligible": d.NumContactsEligible, "contacts_emitted": d.ContactsEmitted,
		"num_eligible_atoms": d.NumEligibleAtoms, "num_events": d.NumEvents,
		"num_distinct_atoms_mentioned": d.NumDistinctAtomsMentioned, "max_depth": d.MaxDepth,
		"quat_w": d.Quat[0], "quat_x": d.Quat[1], "quat_y": d.Quat[2], "quat_z": d.Quat[3],
		"trans_x": d.Trans[0], "trans_y": d.Trans[1], "trans_z": d.Trans[2], "truncated": d.Truncated,
	}
	for k, n := range d.DepthCounts {
		m["depth"+strconv.Itoa(k+1)+"_count"] = n
	}
	return m
}

func floatOrNil(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
