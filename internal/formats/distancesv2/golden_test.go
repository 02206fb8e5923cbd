package distancesv2

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

type goldenLine struct {
	File            string   `json:"file"`
	ResiduePLDDTMin float64  `json:"residue_plddt_min"`
	EntryID         string   `json:"entry_id"`
	NResidues       int      `json:"n_residues"`
	GlobalPLDDT     *float64 `json:"global_plddt"` // absent in the first-chain file
	Outcome         string   `json:"outcome"`
	SHA1            string   `json:"sha1"`
	NumTokens       int      `json:"num_tokens"`
	Document        string   `json:"document"`
	Error           string   `json:"error"`
	Reason          string   `json:"reason"`
	// RequireSingleChain is the knob's setting (absent: the default, true).
	RequireSingleChain *bool `json:"require_single_chain"`
}

// chainFilter is what the reference reports as an error and this format
// counts as a designed-in filter: the golden error's pattern and the
// filter reason it must map to.
var chainFilters = []struct {
	re     *regexp.Regexp
	reason string
}{
	{regexp.MustCompile(`: expected single polymer chain, found [2-9][0-9]*\. Pass require_single_chain=False to take the first\.$`), FilteredMultiChain},
	{regexp.MustCompile(`: no polymer chain$`), FilteredNoPolymer},
}

// expected returns the outcome and filter reason this format must give for
// gl: the golden one, except that the reference's chain errors are filters.
func (gl goldenLine) expected() (outcome, reason string) {
	if gl.Outcome == "error" {
		for _, cf := range chainFilters {
			if cf.re.MatchString(gl.Error) {
				return "filtered", cf.reason
			}
		}
	}
	return gl.Outcome, gl.Reason
}

func readGolden(t *testing.T, dir, name string) []goldenLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out []goldenLine
	for sc.Scan() {
		var g goldenLine
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("golden line %d: %v", len(out)+1, err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGolden runs every line of the golden file: each document line must be
// byte-identical (same sha1) and every other line must have the same
// outcome class (error or filtered), except that the reference's chain
// errors (multi-chain, no polymer chain) must be filtered with the matching
// reason.
func TestGolden(t *testing.T) {
	dir := testcorpus.Dir(t)
	lines := readGolden(t, dir, "contacts-and-distances-v2.jsonl")
	chain := 0
	for _, gl := range lines {
		if gl.RequireSingleChain != nil && !*gl.RequireSingleChain {
			t.Fatalf("%s: golden line with require_single_chain false in the default golden file", gl.File)
		}
		if o, _ := gl.expected(); o != gl.Outcome {
			chain++
		}
	}
	if chain == 0 {
		t.Fatal("no golden line is a chain filter: the golden file or chainFilters changed")
	}
	docs := checkGolden(t, dir, lines, nil)
	t.Logf("%d golden lines, %d documents compared, %d chain errors checked as filters", len(lines), docs, chain)
}

// TestGoldenFirstChain runs the reference with require_single_chain=False
// (it takes the first polymer chain) on every multi-chain corpus file: each
// document must be byte-identical.
func TestGoldenFirstChain(t *testing.T) {
	dir := testcorpus.Dir(t)
	lines := readGolden(t, dir, "contacts-and-distances-v2-first-chain.jsonl")
	for _, gl := range lines {
		if gl.RequireSingleChain == nil || *gl.RequireSingleChain {
			t.Fatalf("%s: golden line without require_single_chain false", gl.File)
		}
	}
	docs := checkGolden(t, dir, lines, map[string]string{"require_single_chain": "false"})
	if docs != len(lines) {
		t.Errorf("%d of %d golden lines are documents; want all", docs, len(lines))
	}
	t.Logf("%d golden lines, %d documents compared", len(lines), docs)
}

// checkGolden compares this format's outcome on each golden line's file
// (with opts and the line's residue_plddt_min) and returns the number of
// documents compared.
func checkGolden(t *testing.T, dir string, lines []goldenLine, opts map[string]string) int {
	t.Helper()
	if len(lines) == 0 {
		t.Fatal("golden file is empty")
	}
	formats := map[float64]*Format{}
	docs := 0
	for _, gl := range lines {
		f := formats[gl.ResiduePLDDTMin]
		if f == nil {
			kv := map[string]string{"residue_plddt_min": strconv.FormatFloat(gl.ResiduePLDDTMin, 'g', -1, 64)}
			for k, v := range opts {
				kv[k] = v
			}
			f = mustFormat(t, kv)
			formats[gl.ResiduePLDDTMin] = f
		}
		got := runFile(f, filepath.Join(dir, gl.File), gl.File)
		wantOutcome, wantReason := gl.expected()
		if got.outcome != wantOutcome || (wantOutcome == "filtered" && got.detail != wantReason) {
			t.Errorf("%s: outcome %s (%s), want %s (%s; golden %s %s%s)", gl.File, got.outcome, got.detail, wantOutcome, wantReason, gl.Outcome, gl.Error, gl.Reason)
			continue
		}
		if gl.Outcome != "document" {
			continue
		}
		docs++
		switch {
		case got.entryID != gl.EntryID:
			t.Errorf("%s: entry_id %q, golden %q", gl.File, got.entryID, gl.EntryID)
		case got.nRes != gl.NResidues:
			t.Errorf("%s: %d residues, golden %d", gl.File, got.nRes, gl.NResidues)
		case gl.GlobalPLDDT != nil && got.plddt != *gl.GlobalPLDDT:
			t.Errorf("%s: global pLDDT %v, golden %v", gl.File, got.plddt, *gl.GlobalPLDDT)
		case got.sha1 != gl.SHA1 || got.tokens != gl.NumTokens:
			t.Errorf("%s: sha1 %s (%d tokens), golden %s (%d tokens)", gl.File, got.sha1, got.tokens, gl.SHA1, gl.NumTokens)
			diffDoc(t, got.doc, gl.Document)
		case got.doc != gl.Document:
			t.Errorf("%s: same sha1 but a different document", gl.File)
		}
	}
	return docs
}

type fileOutcome struct {
	outcome, detail, entryID, sha1, doc string
	nRes, tokens                        int
	plddt                               float64
}

func runFile(f *Format, path, name string) fileOutcome {
	s, err := mmcif.ReadFile(path)
	if err != nil {
		return fileOutcome{outcome: "error", detail: err.Error()}
	}
	id := EntryID(s.Name, name)
	res, err := f.Generate(format.Input{EntryID: id, Structure: s})
	switch {
	case err != nil:
		return fileOutcome{outcome: "error", detail: err.Error(), entryID: id}
	case res.Filtered != "":
		return fileOutcome{outcome: "filtered", detail: res.Filtered, entryID: id}
	}
	sum := sha1.Sum([]byte(res.Document))
	return fileOutcome{outcome: "document", entryID: id, sha1: hex.EncodeToString(sum[:]), doc: res.Document,
		nRes: int(res.Values[0].(int64)), plddt: res.Values[1].(float64), tokens: int(res.Values[4].(int64))}
}
