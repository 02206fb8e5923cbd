package confind

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// goldenLine is one line of confind-mini.jsonl, confind-synth.jsonl or
// confind-edge.jsonl.
type goldenLine struct {
	File        string            `json:"file"`
	Mode        string            `json:"mode"`
	Library     string            `json:"library"`
	EntryID     *string           `json:"entry_id"`
	Outcome     string            `json:"outcome"`
	Reason      string            `json:"reason"`
	Positions   []json.RawMessage `json:"positions"`
	Contacts    [][3]float64      `json:"contacts"`
	ContactsHex []string          `json:"contacts_hex"`
	Record      *goldenRecord     `json:"record"`
	Document    *string           `json:"document"`
	SHA1        *string           `json:"sha1"`
	NumTokens   *int              `json:"num_tokens"`
	ErrorType   string            `json:"error_type"`
	Error       string            `json:"error"`
}

type goldenRecord struct {
	EntryID        string    `json:"entry_id"`
	SeqLen         int       `json:"seq_len"`
	GlobalPLDDT    *float64  `json:"global_plddt"`
	NumContacts    int       `json:"num_contacts"`
	ResidueResname []string  `json:"residue_resname"`
	ResidueResnum  []int64   `json:"residue_resnum"`
	ResidueChain   []string  `json:"residue_chain"`
	ContactSeqI    []int64   `json:"contact_seq_i"`
	ContactSeqJ    []int64   `json:"contact_seq_j"`
	ContactDegree  []float64 `json:"contact_degree"`
}

func readGolden(tb testing.TB, path string) []goldenLine {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []goldenLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var g goldenLine
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			tb.Fatalf("%s line %d: %v", path, len(out)+1, err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatalf("%s: no lines", path)
	}
	return out
}

// checkPositions compares positions with the golden
// [chain, resnum, icode, resname, phi, psi, n_placed, n_survived] rows.
func checkPositions(t *testing.T, got []Position, want []json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d positions, want %d", len(got), len(want))
		return
	}
	bad := 0
	for i, raw := range want {
		var w []any
		if err := json.Unmarshal(raw, &w); err != nil || len(w) != 8 {
			t.Fatalf("position %d: bad golden row %s", i, raw)
		}
		p := &got[i]
		g := []any{p.Chain, float64(p.ResNum), p.ICode, p.ResName, angleOrNil(p.Phi, p.HasPhi), angleOrNil(p.Psi, p.HasPsi), float64(p.NPlaced), float64(p.NSurvived)}
		for k := range g {
			if g[k] != w[k] {
				if bad++; bad <= 10 {
					t.Errorf("position %d field %d = %v, want %v (row %s)", i, k, g[k], w[k], raw)
				}
			}
		}
	}
}

func angleOrNil(v float64, ok bool) any {
	if !ok {
		return nil
	}
	return v
}

// checkContacts compares contacts with the golden [i, j, degree] rows and
// every degree's bits with contacts_hex.
func checkContacts(t *testing.T, got []Contact, want [][3]float64, hex []string) {
	t.Helper()
	if len(want) != len(hex) {
		t.Fatalf("golden has %d contacts but %d hex degrees", len(want), len(hex))
	}
	if len(got) != len(want) {
		t.Errorf("%d contacts, want %d", len(got), len(want))
	}
	bad := 0
	for k := 0; k < len(got) && k < len(want); k++ {
		wd, err := strconv.ParseFloat(hex[k], 64)
		if err != nil {
			t.Fatalf("contacts_hex[%d] %q: %v", k, hex[k], err)
		}
		c := got[k]
		if c.I != int(want[k][0]) || c.J != int(want[k][1]) || math.Float64bits(c.Degree) != math.Float64bits(wd) {
			if bad++; bad <= 10 {
				t.Errorf("contact %d = (%d, %d, %s), want (%v, %v, %s)", k, c.I, c.J, strconv.FormatFloat(c.Degree, 'x', -1, 64), want[k][0], want[k][1], hex[k])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d contacts differ", bad)
	}
}

func checkRecord(t *testing.T, a *contactsv1.Analysis, w *goldenRecord) {
	t.Helper()
	got := goldenRecord{EntryID: a.EntryID, SeqLen: len(a.ResName), NumContacts: len(a.Degree), GlobalPLDDT: a.GlobalPLDDT,
		ResidueResname: a.ResName, ResidueResnum: a.ResNum, ResidueChain: a.ResChain,
		ContactSeqI: a.ContactI, ContactSeqJ: a.ContactJ, ContactDegree: a.Degree}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(w)
	if string(gj) != string(wj) {
		t.Errorf("record differs:\n got  %.300s\n want %.300s", gj, wj)
	}
	if (a.GlobalPLDDT == nil) != (w.GlobalPLDDT == nil) || (a.GlobalPLDDT != nil && math.Float64bits(*a.GlobalPLDDT) != math.Float64bits(*w.GlobalPLDDT)) {
		t.Errorf("global_plddt = %v, want %v", a.GlobalPLDDT, w.GlobalPLDDT)
	}
}

// readerDivergent are corpus files where internal/mmcif knowingly reads
// what gemmi 0.5.7 fails on (see the mmcif package doc): gemmi raises
// IndexError from its metadata reading, our reader gives 0 models, so we
// raise "no protein residues". Both write no document.
var readerDivergent = map[string]string{
	"edge/pymmcif_specialTestFile.cif": "IndexError: vector::_M_range_check: __n (which is 0) >= this->size() (which is 0)",
}

// runGolden checks one golden line of MarinFold's native-only path (or of
// pyconfind's default mode when g.Mode is "default").
func runGolden(t *testing.T, root string, g goldenLine, lib *Library) {
	st, err := mmcif.ReadFile(filepath.Join(root, g.File))
	if err != nil {
		if g.Outcome != "error" || g.Positions != nil {
			t.Fatalf("read: %v (golden outcome %s)", err, g.Outcome)
		}
		if g.ErrorType != "ValueError" && g.ErrorType != "IndexError" {
			t.Fatalf("read failed (%v) but the reference raised %s", err, g.ErrorType)
		}
		return // the reference's reader (gemmi) failed too
	}
	if g.Mode == "default" {
		r, err := Compute(st, lib, false)
		if g.Outcome == "error" {
			if !errors.Is(err, ErrNoNativeAtom) || g.ErrorType != "IndexError" || g.Error != err.Error() {
				t.Fatalf("Compute error = %v, want %s: %s", err, g.ErrorType, g.Error)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkPositions(t, r.Positions, g.Positions)
		checkContacts(t, r.Contacts, g.Contacts, g.ContactsHex)
		return
	}
	a, r, err := AnalyzeNativeResult(st, g.File, lib)
	if r != nil && g.Positions != nil {
		checkPositions(t, r.Positions, g.Positions)
		checkContacts(t, r.Contacts, g.Contacts, g.ContactsHex)
	}
	if g.Outcome == "error" {
		var ae *AnalysisError
		if want, ok := readerDivergent[g.File]; ok && g.Reason == want && errors.Is(err, ErrNoProtein) {
			return
		}
		if !errors.As(err, &ae) {
			t.Fatalf("AnalyzeNative error = %v, want %s", err, g.Reason)
		}
		if got := fmt.Sprintf("%s: %s", ae.PyType(), ae.Msg); got != g.Reason {
			t.Errorf("error %q, want %q", got, g.Reason)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	checkRecord(t, a, g.Record)
	doc, filtered, err := contactsv1.Generate(a, contactsv1.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	switch g.Outcome {
	case "filtered":
		if filtered != g.Reason {
			t.Errorf("filtered %q, want %q", filtered, g.Reason)
		}
	case "document":
		if doc == nil {
			t.Fatalf("no document (filtered %q)", filtered)
		}
		if doc.SHA1 != *g.SHA1 || doc.Text != *g.Document || doc.NumTokens != *g.NumTokens {
			t.Errorf("document sha1 %s (%d tokens), want %s (%d tokens)", doc.SHA1, doc.NumTokens, *g.SHA1, *g.NumTokens)
		}
	default:
		t.Fatalf("unknown outcome %q", g.Outcome)
	}
}

// TestGoldenMini checks every line of confind-mini.jsonl: positions,
// contact pairs, every degree's bits, the record, the error or filter, and
// the document's bytes.
func TestGoldenMini(t *testing.T) {
	dir := testcorpus.Dir(t)
	lib := miniLib(t)
	docs := 0
	for _, g := range readGolden(t, filepath.Join(dir, "golden", "confind-mini.jsonl")) {
		t.Run(g.File, func(t *testing.T) { runGolden(t, dir, g, lib) })
		if g.Outcome == "document" {
			docs++
		}
	}
	if docs != 57 {
		t.Errorf("%d document lines, want 57", docs)
	}
}

var synth struct {
	sync.Once
	lib *Library
	err error
	// compact is the library LoadLibrary reads from the compact form
	// WriteCompact wrote beside the texts (TestCompactSynth).
	compact    *Library
	compactErr error
}

// synthLib writes the synthetic production-size library with
// ../shared/tools/synth_rotlib.py (its defaults: --seed 1, the mini template;
// about 3 s) into a temporary folder once per test binary, and loads it
// (WriteCompact's parse of the texts); it also loads the compact form it
// wrote (synth.compact).
func synthLib(t *testing.T) *Library {
	t.Helper()
	py := testcorpus.Tool(t, "/usr/bin/python3", "writes the synthetic rotamer library (tools/synth_rotlib.py)")
	dir := testcorpus.Dir(t)
	synth.Do(func() {
		out, err := os.MkdirTemp("", "confind-synth-*")
		if err != nil {
			synth.err = err
			return
		}
		defer os.RemoveAll(out)
		script := filepath.Join(dir, "..", "tools", "synth_rotlib.py")
		cmd := exec.Command(py, script, "--template", filepath.Join(dir, "golden", "confind-mini-rotlib", "EBL.out"), "--out", out)
		if msg, err := cmd.CombinedOutput(); err != nil {
			synth.err = fmt.Errorf("%s: %v\n%s", script, err, msg)
			return
		}
		synth.lib, _, synth.err = WriteCompact(out)
		if synth.err == nil {
			synth.compact, synth.compactErr = LoadLibrary(out)
		}
	})
	if synth.err != nil {
		t.Fatal(synth.err)
	}
	return synth.lib
}

// TestGoldenSynth checks confind-synth.jsonl (5 AFDB files with the
// synthetic library: binning, weights[:nr], the 8-accumulator sum).
func TestGoldenSynth(t *testing.T) {
	dir := testcorpus.Dir(t)
	lib := synthLib(t)
	for _, g := range readGolden(t, filepath.Join(dir, "golden", "confind-synth.jsonl")) {
		t.Run(g.File, func(t *testing.T) { runGolden(t, dir, g, lib) })
	}
}

// TestGoldenEdge checks confind-edge.jsonl: both modes, both libraries.
func TestGoldenEdge(t *testing.T) {
	dir := testcorpus.Dir(t)
	mini := miniLib(t)
	lines := readGolden(t, filepath.Join(dir, "golden", "confind-edge", "confind-edge.jsonl"))
	if len(lines) != 56 {
		t.Errorf("%d lines, want 56", len(lines))
	}
	for _, g := range lines {
		t.Run(g.File+"/"+g.Mode+"/"+g.Library, func(t *testing.T) {
			lib := mini
			if g.Library == "synth" {
				lib = synthLib(t)
			}
			runGolden(t, filepath.Join(dir, "golden"), g, lib)
		})
	}
}
