package cadv2

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

type goldenLine struct {
	File            string  `json:"file"`
	ResiduePLDDTMin float64 `json:"residue_plddt_min"`
	EntryID         string  `json:"entry_id"`
	NResidues       int     `json:"n_residues"`
	GlobalPLDDT     float64 `json:"global_plddt"`
	Outcome         string  `json:"outcome"`
	SHA1            string  `json:"sha1"`
	NumTokens       int     `json:"num_tokens"`
	Document        string  `json:"document"`
	Error           string  `json:"error"`
	Reason          string  `json:"reason"`
}

func readGolden(t *testing.T, dir string) []goldenLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "golden", "contacts-and-distances-v2.jsonl"))
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
// outcome class (error or filtered).
func TestGolden(t *testing.T) {
	dir := testcorpus.Dir(t)
	lines := readGolden(t, dir)
	if len(lines) == 0 {
		t.Fatal("golden file is empty")
	}
	formats := map[float64]*Format{}
	docs := 0
	for _, gl := range lines {
		f := formats[gl.ResiduePLDDTMin]
		if f == nil {
			f = mustFormat(t, map[string]string{"residue_plddt_min": strconv.FormatFloat(gl.ResiduePLDDTMin, 'g', -1, 64)})
			formats[gl.ResiduePLDDTMin] = f
		}
		got := runFile(f, filepath.Join(dir, gl.File), gl.File)
		if got.outcome != gl.Outcome {
			t.Errorf("%s: outcome %s (%s), golden %s (%s%s)", gl.File, got.outcome, got.detail, gl.Outcome, gl.Error, gl.Reason)
			continue
		}
		if gl.Outcome != "document" {
			continue
		}
		docs++
		switch {
		case got.entryID != gl.EntryID:
			t.Errorf("%s: entry_id %q, golden %q", gl.File, got.entryID, gl.EntryID)
		case got.nRes != gl.NResidues || got.plddt != gl.GlobalPLDDT:
			t.Errorf("%s: %d residues, global pLDDT %v; golden %d, %v", gl.File, got.nRes, got.plddt, gl.NResidues, gl.GlobalPLDDT)
		case got.sha1 != gl.SHA1 || got.tokens != gl.NumTokens:
			t.Errorf("%s: sha1 %s (%d tokens), golden %s (%d tokens)", gl.File, got.sha1, got.tokens, gl.SHA1, gl.NumTokens)
			diffDoc(t, got.doc, gl.Document)
		}
	}
	t.Logf("%d golden lines, %d documents compared", len(lines), docs)
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
