package cropsv1

import (
	"fmt"
	"math"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// DocType is the document's first token.
const DocType = "<contacts-and-crops-v1>"

// DefaultContextLength is the reference's context length for this format.
const DefaultContextLength = 8192

// Token costs.
const (
	pass1Mention = 4 // <pX> <ATOM> <xyz-HHH> <xyz-TTT>
	cropHeader   = 3 // <crop> <xyz-HHH> <xyz-TTT>
	cropAtom     = 4 // <pX> <ATOM> <xyz-OOO> <xyz-PPP>
	tokCrop      = "<crop>"
	grid         = 100 // boxes per axis
)

// Config is GenerationConfig plus the context length; start from
// DefaultConfig.
type Config struct {
	Front           coordfront.Config
	FineReserve     int     // tokens held back from Pass 1 for Pass 2
	Pass1Sigma      float64 // Pass-1 box noise, Å
	SelectRandom    float64 // Pass-2 probability of a random atom's box
	SelectFrontier  float64 // Pass-2 probability of a frontier box (re-show: the rest)
	RefineNoiseBase float64 // Pass-2 noise on a box's i-th read: base/(i+1)^2
	KeepProb        float64 // Pass-2 keep probability of a member
}

// DefaultConfig is the reference's defaults.
func DefaultConfig() Config {
	return Config{Front: coordfront.DefaultConfig(DefaultContextLength), FineReserve: 2000, Pass1Sigma: 2.0,
		SelectRandom: 0.45, SelectFrontier: 0.45, RefineNoiseBase: 1.0, KeepProb: 0.99}
}

// Validate checks the knobs as the reference's GenerationConfig does, and
// the shared ones.
func (c Config) Validate() error {
	if c.FineReserve < 0 {
		return fmt.Errorf("fine_reserve must be >= 0, got %d", c.FineReserve)
	}
	if reshow := 1.0 - c.SelectRandom - c.SelectFrontier; !(c.SelectRandom >= 0) || !(c.SelectFrontier >= 0) || reshow < -1e-9 {
		return fmt.Errorf("pass2_select_random + pass2_select_frontier must be in [0, 1] (got %v + %v)", c.SelectRandom, c.SelectFrontier)
	}
	if !(c.Pass1Sigma >= 0) || math.IsInf(c.Pass1Sigma, 0) || !(c.RefineNoiseBase >= 0) || math.IsInf(c.RefineNoiseBase, 0) {
		return fmt.Errorf("pass1_box_noise_sigma (%v) and pass2_refine_noise_base (%v) must be finite and >= 0", c.Pass1Sigma, c.RefineNoiseBase)
	}
	return coordfront.ValidateConfig(c.Front)
}

// Document is one generated document and its metadata row.
type Document struct {
	Text                   string
	EntryID                string
	SeqLen                 int
	GlobalPLDDT            *float64
	StartIndex             int
	NTermIndex, CTermIndex int
	MinSeqSeparation       int
	NumContactsEligible    int
	ContactsEmitted        int
	NumEligibleAtoms       int
	NumPass1Mentions       int
	NumCrops               int
	NumEmptyCrops          int
	NumDistinctCropBoxes   int
	CropAtomsEmitted       int
	MaxBoxVisits           int
	Quat                   [4]float64
	Trans                  [3]float64
	Truncated              bool
	NumTokens              int
	DuplicateKeys          int
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
	front      coordfront.Scratch
	pick       picker
	trueCell   []int32
	cells      cellIndex
	visits     []int32 // pass 2: each box's crops so far, by cellIndex.near
	inFrontier []bool  // pass 2: whether each box is in the frontier, by cellIndex.near
	shownOrder []int32
	shownNear  []int32
	frontier   []int32
	included   []member
	counts     []float64
	nbs        [][3]int
	flat       []int32 // pass 2: the candidate atoms of a crop, in order
	kernel     kernelArgs
	approx     coordfront.ApproxCache
	picks      []int32   // pass 1's atoms
	px         []float64 // pass 1's atom draws (random())
	rs         []float64 // pass 1's random()s, in order
	xs, us, zs []float64 // pass 1's Gaussian pairs and values
}

// Generate is the package's Generate, reusing g's memory.
func (g *Generator) Generate(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg Config) (*Document, string) {
	f, filtered := g.front.Build(st, a, entryID, cfg.Front)
	if filtered != "" {
		return nil, filtered
	}
	d := &Document{EntryID: entryID, SeqLen: f.L, GlobalPLDDT: a.GlobalPLDDT, StartIndex: f.Start,
		NTermIndex: f.Pos(0), CTermIndex: f.Pos(f.L - 1), MinSeqSeparation: cfg.Front.MinSeqSeparation,
		NumContactsEligible: f.PoolSize, ContactsEmitted: len(f.Contacts), NumEligibleAtoms: len(f.Placed),
		Quat: f.Quat, Trans: f.Trans, DuplicateKeys: f.Atoms.DuplicateKeys}
	w := &g.front.W
	*w = coordfront.Writer{Buf: w.Buf[:0]}
	f.WritePrefix(w, DocType, a.ResName)
	budget := max(0, cfg.Front.ContextLength-f.FixedTokens()-coordfront.ContactStatement*len(f.Contacts))
	used, doc := g.pass1(f, cfg, max(0, budget-cfg.FineReserve), budget, w, d)
	g.pass2(f, cfg, budget, used, &doc, d)
	doc.Tok(coordfront.TokEnd)
	d.NumTokens = doc.Tokens
	d.Text = coordfront.Text(doc.Buf) // doc's buffer is the document's alone
	return d, ""
}

// Byte counts of the document's lengths (see pass1).
const (
	endBytes = len(" " + coordfront.TokEnd)
	xyzBytes = len(" <xyz-000>")
	// pass2TokenBytes bounds Pass 2's bytes per token: a crop header
	// (" <crop>" and two xyz tokens) has 27 bytes in 3 tokens, a crop
	// atom at most 34 in 4 (" <p1999>", " <OXT>" and two xyz tokens).
	pass2TokenBytes = 9
)

// cell is the 10 Å box index (0..99) of a coordinate:
// round(clamp(v, 0, 999.9) * 10) // 100.
func cell(v float64) int { return tenths(v) / 100 }

// tenths is round(clamp(v, 0, 999.9) * 10), half to even.
func tenths(v float64) int {
	return int(coordfront.ClampRound(v, 999.9, 10))
}

// boxTokens are the two tokens naming box (cx, cy, cz) exactly.
func boxTokens(w *coordfront.Writer, b [3]int) {
	w.Put(coordfront.XYZ16(100*(b[0]/10) + 10*(b[1]/10) + b[2]/10))
	w.Put(coordfront.XYZ16(100*(b[0]%10) + 10*(b[1]%10) + b[2]%10))
}

// useKernel selects the C kernel where it is built in (kernelOK); tests
// turn it off to run the Go loop it is checked against.
var useKernel = true
