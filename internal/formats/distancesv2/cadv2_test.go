package distancesv2

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// helix builds a single-chain polymer of n residues on a tight helix (0.4 Å
// rise: compact enough for contacts at any separation), with N, CA, CB (GLY: none), O, one hydrogen and B = 50 + i.
func helix(n int, name func(i int) string) *structure.Structure {
	res := make([]structure.Residue, n)
	for i := range res {
		t := float64(i) * 100 * math.Pi / 180
		x, y, z := 2.3*math.Cos(t), 2.3*math.Sin(t), 0.4*float64(i)
		b := float32(50 + i)
		atoms := []structure.Atom{
			{Name: "N", Element: "N", B: b, X: x - 0.5, Y: y, Z: z - 0.5},
			{Name: "CA", Element: "C", B: b, X: x, Y: y, Z: z},
			{Name: "H", Element: "H", B: 0, X: x, Y: y + 1, Z: z},
			{Name: "O", Element: "O", B: b, X: x + 0.5, Y: y, Z: z + 0.5},
		}
		nm := name(i)
		if nm != "GLY" {
			atoms = append(atoms, structure.Atom{Name: "CB", Element: "C", B: b, X: x * 1.4, Y: y * 1.4, Z: z})
		}
		res[i] = structure.Residue{Name: nm, LabelSeq: i + 1, Subchain: "A", EntityID: "1", Entity: structure.EntityPolymer, Atoms: atoms}
	}
	return &structure.Structure{Name: "AF-TEST-F1", Models: []structure.Model{{Num: 1, Chains: []structure.Chain{{Name: "A", Residues: res}}}}}
}

func cycle(i int) string { return aminoAcids[i%len(aminoAcids)] }

func mustFormat(t testing.TB, kv map[string]string) *Format {
	t.Helper()
	if !pyrandom.ExactLibm {
		t.Skip("built without cgo: the format refuses to run (pyrandom.ExactLibm is false)")
	}
	f, err := NewFromOptions(kv)
	if err != nil {
		t.Fatal(err)
	}
	return f.(*Format)
}

func TestAdaptErrors(t *testing.T) {
	two := helix(10, cycle)
	c := two.Models[0].Chains[0]
	c.Name = "B"
	c.Residues = slices.Clone(c.Residues[:4])
	two.Models[0].Chains = append(two.Models[0].Chains, c)
	water := helix(3, cycle)
	for i := range water.Models[0].Chains[0].Residues {
		water.Models[0].Chains[0].Residues[i].Entity = structure.EntityWater
	}
	// Chain filters are designed-in outcomes, not errors; a file without
	// models stays a permanent error.
	tests := []struct {
		name         string
		s            *structure.Structure
		singleChain  bool
		wantErr      string
		wantFiltered string
		wantRes      int // residues adapted, when neither
	}{
		{name: "no models", s: &structure.Structure{Name: "x"}, singleChain: true, wantErr: "no models in structure"},
		{name: "no models, any chain", s: &structure.Structure{Name: "x"}, wantErr: "no models in structure"},
		{name: "no polymer", s: water, singleChain: true, wantFiltered: FilteredNoPolymer},
		{name: "no polymer, any chain", s: water, wantFiltered: FilteredNoPolymer},
		{name: "two chains", s: two, singleChain: true, wantFiltered: FilteredMultiChain},
		{name: "two chains, first taken", s: two, wantRes: 10},
	}
	for _, tt := range tests {
		p, filtered, err := Adapt(tt.s, tt.singleChain)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, derrors.ErrPermanent) {
				t.Errorf("Adapt(%s) = %v, want a permanent error containing %q", tt.name, err, tt.wantErr)
			}
		case err != nil || filtered != tt.wantFiltered:
			t.Errorf("Adapt(%s) = %q, %v; want filtered %q", tt.name, filtered, err, tt.wantFiltered)
		case tt.wantFiltered == "" && len(p.Res) != tt.wantRes:
			t.Errorf("Adapt(%s) adapted %d residues, want %d (the first chain)", tt.name, len(p.Res), tt.wantRes)
		}
		res, err := mustFormat(t, map[string]string{"require_single_chain": strconv.FormatBool(tt.singleChain)}).
			Generate(format.Input{EntryID: "e", Structure: tt.s})
		switch {
		case (err != nil) != (tt.wantErr != ""):
			t.Errorf("Generate(%s) error %v, want one: %v", tt.name, err, tt.wantErr != "")
		case err == nil && res.Filtered != tt.wantFiltered:
			t.Errorf("Generate(%s) filtered %q, want %q", tt.name, res.Filtered, tt.wantFiltered)
		case err == nil && (res.Filtered == "") != (res.Document != ""):
			t.Errorf("Generate(%s): filtered %q with a %d-byte document", tt.name, res.Filtered, len(res.Document))
		}
	}
}

func TestAdaptResidues(t *testing.T) {
	s := helix(4, func(i int) string { return []string{"MSE", "GLY", "ALA", "HOH"}[i] })
	r := s.Models[0].Chains[0].Residues
	// Residue 0: an altloc duplicate of CB and a non-vocabulary heavy atom.
	r[0].Atoms = append(r[0].Atoms,
		structure.Atom{Name: "CB", Element: "C", AltLoc: 'B', B: 10, X: 9, Y: 9, Z: 9},
		structure.Atom{Name: "SE", Element: "SE", B: 20})
	// Residue 2: no CB, so its contact atom is CA.
	r[2].Atoms = r[2].Atoms[:4]
	// Residue 3: hydrogens only.
	r[3].Atoms = []structure.Atom{{Name: "H1", Element: "H", B: 5}, {Name: "D2", Element: "D", B: 5}}
	p, filtered, err := Adapt(s, true)
	if err != nil || filtered != "" {
		t.Fatal(err)
	}
	if want := []uint8{unk, glyIdx, 0, unk}; string(p.Res) != string(want) {
		t.Errorf("Res = %v, want %v", p.Res, want)
	}
	if want := []int32{0, 5, 8, 11, 11}; !slices.Equal(p.AtomStart, want) {
		t.Errorf("AtomStart = %v, want %v (H and SE dropped, altloc CB kept)", p.AtomStart, want)
	}
	if want := []int32{3, 6, 9, -1}; !slices.Equal(p.Rep, want) {
		t.Errorf("Rep = %v, want %v (first CB; GLY CA; missing CB: CA; none)", p.Rep, want)
	}
	want0 := (50.0*4 + 10 + 20) / 6
	if p.PLDDT[0] != want0 || p.PLDDT[1] != 51 || !math.IsInf(p.PLDDT[3], -1) || !math.IsInf(p.GlobalPLDDT, -1) {
		t.Errorf("PLDDT = %v (global %v), want [%v 51 52 -Inf] (global -Inf)", p.PLDDT, p.GlobalPLDDT, want0)
	}
}

func TestFilterOutcomes(t *testing.T) {
	tests := []struct {
		name string
		n    int
		kv   map[string]string
		want string
	}{
		{"one residue", 1, nil, FilteredTooShort},
		{"no room", 40, map[string]string{"context_length": "45"}, FilteredNoRoom},
		{"fits", 40, map[string]string{"context_length": "60"}, ""},
	}
	for _, tt := range tests {
		res, err := mustFormat(t, tt.kv).Generate(format.Input{EntryID: "AF-TEST-F1", Structure: helix(tt.n, cycle)})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if res.Filtered != tt.want || (tt.want == "") != (res.Document != "") {
			t.Errorf("%s: Filtered = %q (document %d bytes), want %q", tt.name, res.Filtered, len(res.Document), tt.want)
		}
	}
}

func TestDocumentShape(t *testing.T) {
	f := mustFormat(t, map[string]string{"residue_plddt_min": "0"})
	res, err := f.Generate(format.Input{EntryID: "AF-TEST-F1", Structure: helix(120, cycle)})
	if err != nil {
		t.Fatal(err)
	}
	toks := strings.Fields(res.Document)
	if got := res.Values[4].(int64); got != int64(len(toks)) || got > 8192 || got < 8192-6 {
		t.Errorf("num_tokens = %d, document has %d tokens; want within 6 of 8192", got, len(toks))
	}
	if toks[0] != "<contacts-and-distances-v2>" || toks[1] != "<begin_sequence>" || toks[2] != "<ALA>" ||
		toks[122] != "<begin_statements>" || toks[len(toks)-1] != "<end>" {
		t.Errorf("document frame wrong: %v ... %v", toks[:4], toks[len(toks)-3:])
	}
	if res.Values[2].(int64) == 0 || res.Values[3].(int64) == 0 {
		t.Errorf("contacts_emitted %v, distances_emitted %v: want both > 0", res.Values[2], res.Values[3])
	}
	if n := strings.Count(res.Document, "<plddt_"); n != 1 {
		t.Errorf("document has %d pLDDT tokens, want 1", n)
	}
}

// TestDeterministic: the same input gives the same bytes, across Format
// instances, reused scratch space and concurrent callers; another entry_id
// gives another document.
func TestDeterministic(t *testing.T) {
	s := helix(200, cycle)
	ref, err := mustFormat(t, nil).Generate(format.Input{EntryID: "AF-TEST-F1", Structure: s})
	if err != nil {
		t.Fatal(err)
	}
	f := mustFormat(t, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 8; i++ {
				id := "AF-TEST-F1"
				if i%2 == 1 {
					id = "AF-OTHER-F1"
				}
				res, err := f.Generate(format.Input{EntryID: id, Structure: s})
				switch {
				case err != nil:
					errs <- err.Error()
				case id == "AF-TEST-F1" && res.Document != ref.Document:
					errs <- "same input, different document"
				case id != "AF-TEST-F1" && res.Document == ref.Document:
					errs <- "different seed, same document"
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestEntryID(t *testing.T) {
	tests := []struct{ block, file, want string }{
		{"AF-P69905-F1", "x/AF-P69905-F1-model_v4.cif", "AF-P69905-F1"},
		{"1CRN", "1crn.cif", "1CRN"},
		{"model.cif", "a.cif", "model"},
		{"thing.mmcif", "", "thing"},
		{"x.pdb", "", "x"},
		{"y.ent", "", "y"},
		{"z.cif.gz", "", "z.cif.gz"},
		{"", "dir/foo.cif", "foo"},
		{"", "foo", "foo"},
	}
	for _, tt := range tests {
		if got := EntryID(tt.block, tt.file); got != tt.want {
			t.Errorf("EntryID(%q, %q) = %q, want %q", tt.block, tt.file, got, tt.want)
		}
	}
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		kv      map[string]string
		wantErr bool
		check   func(o Options) bool
	}{
		{nil, false, func(o Options) bool { return o.ResiduePLDDTMin == 70 && o.ContextLength == 8192 }},
		{map[string]string{"residue_plddt_min": "0"}, false, func(o Options) bool { return o.ResiduePLDDTMin == 0 }},
		{map[string]string{"plddt_bin_edges": "50, 90"}, false, func(o Options) bool { return len(o.PLDDTBinEdges) == 2 }},
		{map[string]string{"context_length": "4096", "think_p": "0.5"}, false, func(o Options) bool { return o.ContextLength == 4096 && o.ThinkP == 0.5 }},
		{map[string]string{"residue_plddt_min": "high"}, true, nil},
		{map[string]string{"no_such_knob": "1"}, true, nil},
		{map[string]string{"context_length": "0"}, true, nil},
		{map[string]string{"plddt_bin_edges": "90,50"}, true, nil},
	}
	for _, tt := range tests {
		o, err := ParseOptions(tt.kv)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseOptions(%v) error = %v, want error %v", tt.kv, err, tt.wantErr)
			continue
		}
		if err == nil && !tt.check(o) {
			t.Errorf("ParseOptions(%v) = %+v: check failed", tt.kv, o)
		}
	}
}

func TestPLDDTTokens(t *testing.T) {
	g := NewGenerator(Defaults())
	tests := []struct {
		v    float64
		want string
	}{
		{math.Inf(-1), "<plddt_lt70>"}, {69.999, "<plddt_lt70>"}, {70, "<plddt_70_75>"}, {74.9, "<plddt_70_75>"},
		{90, "<plddt_90_95>"}, {95, "<plddt_95_100>"}, {100, "<plddt_95_100>"},
	}
	for _, tt := range tests {
		if got := g.plddtToken(tt.v); got != tt.want {
			t.Errorf("plddtToken(%v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

func TestLookups(t *testing.T) {
	for i, n := range atomVocab {
		if c, ok := atomCode(n); !ok || int(c) != i {
			t.Errorf("atomCode(%q) = %d, %v; want %d", n, c, ok, i)
		}
	}
	for _, n := range []string{"", "H", "CA ", "ca", "OXT1", "SE", "\x00", "C\x00", "CC", "CCC", "CAA", "NNZ", "OXTT"} {
		if _, ok := atomCode(n); ok {
			t.Errorf("atomCode(%q) found a vocabulary atom", n)
		}
	}
	for i, n := range aminoAcids {
		if c := residueCode(n); int(c) != i {
			t.Errorf("residueCode(%q) = %d, want %d", n, c, i)
		}
	}
	for _, n := range []string{"MSE", "UNK", "HOH", "DA", "ala", "", "A", "AL", "GLYX", "GGG", "ALAALA"} {
		if c := residueCode(n); c != unk {
			t.Errorf("residueCode(%q) = %d, want UNK", n, c)
		}
	}
}

func TestNewNeedsExactLibm(t *testing.T) {
	_, err := New(Defaults())
	if (err == nil) != pyrandom.ExactLibm {
		t.Errorf("New with ExactLibm=%v: error %v", pyrandom.ExactLibm, err)
	}
}
