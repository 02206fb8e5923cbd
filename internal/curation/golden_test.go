package curation

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus/pdbgolden"
)

// goldenLine is a golden line (pdbgolden) with the parts curation must
// reproduce decoded: the ledger row and the analyses' structures.
type goldenLine struct {
	pdbgolden.Line
	Ledger   *LedgerRow
	Analyses []goldenAnalysis
}

// goldenAnalysis is an analysed structure as curation built it.
type goldenAnalysis struct {
	Kind          string            `json:"kind"`
	Outcome       string            `json:"outcome"`
	EntryID       string            `json:"entry_id"`
	StructureName string            `json:"structure_name"`
	Model0Chains  []json.RawMessage `json:"model0_chains"`
}

func readGolden(t *testing.T, path string) []goldenLine {
	t.Helper()
	lines, err := pdbgolden.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatalf("%s: no lines", path)
	}
	out := make([]goldenLine, len(lines))
	for i, l := range lines {
		out[i].Line = l
		if len(l.Ledger) > 0 && string(l.Ledger) != "null" {
			if err := json.Unmarshal(l.Ledger, &out[i].Ledger); err != nil {
				t.Fatalf("%s %s ledger: %v", path, l.PDBID, err)
			}
		}
		out[i].Analyses = make([]goldenAnalysis, len(l.Analyses))
		for k, raw := range l.Analyses {
			if err := json.Unmarshal(raw, &out[i].Analyses[k]); err != nil {
				t.Fatalf("%s %s analysis %d: %v", path, l.PDBID, k, err)
			}
		}
	}
	return out
}

// model0Chains is the golden's [chain name, residues, atoms] of model 0.
func model0Chains(st *structure.Structure) []string {
	var out []string
	for _, c := range st.Models[0].Chains {
		atoms := 0
		for _, r := range c.Residues {
			atoms += len(r.Atoms)
		}
		out = append(out, fmt.Sprintf(`["%s",%d,%d]`, c.Name, len(c.Residues), atoms))
	}
	return out
}

func rawStrings(raw []json.RawMessage) []string {
	out := make([]string, len(raw))
	for i, r := range raw {
		var v []any
		_ = json.Unmarshal(r, &v)
		b, _ := json.Marshal(v)
		out[i] = string(b)
	}
	return out
}

// documentStatus: the statuses only the document step gives.
func documentStatus(s string) bool {
	return s == StatusOK || s == StatusUnserializable || s == StatusCollapsedToMonomer
}

func TestGoldenPDBCuration(t *testing.T) {
	dir := testcorpus.Dir(t)
	for _, set := range []string{"golden/pdb-curation/pdb-curation.jsonl", "golden/pdb-curation/edge/pdb-curation-edge.jsonl"} {
		lines := readGolden(t, filepath.Join(dir, set))
		selected, analyses := 0, 0
		for _, g := range lines {
			e, err := mmcif.ReadEntryFile(filepath.Join(dir, g.File))
			if err != nil {
				t.Fatalf("%s: %v", g.File, err)
			}
			if g.EntryFilter != "selected" {
				continue
			}
			selected++
			header := int(g.Metadata.NAssembly1ProteinChains)
			res, err := Curate(e, Options{MaxChains: 60, HeaderChains: &header})
			if err != nil {
				t.Fatalf("%s: %v", g.PDBID, err)
			}
			checkLedger(t, g, res)
			analyses += checkAnalyses(t, g, res)
		}
		t.Logf("%s: %d entries, %d selected, %d analysed structures checked", set, len(lines), selected, analyses)
	}
}

func checkLedger(t *testing.T, g goldenLine, res *Result) {
	t.Helper()
	want := *g.Ledger
	d := DocumentOutcome{MonomerDocs: want.MonomerDocs, MonomerFailures: want.MonomerFailures}
	if res.Multimer != nil {
		d.MultimerStatus = want.MultimerStatus
	}
	got, err := res.Ledger(g.PDBID, d)
	if err != nil {
		t.Errorf("%s: %v (exp222's status %s)", g.PDBID, err, want.MultimerStatus)
		return
	}
	if documentStatus(want.MultimerStatus) != (res.Multimer != nil) {
		t.Errorf("%s: curation status %q, multimer handed on %v; exp222's status %s", g.PDBID, res.MultimerStatus, res.Multimer != nil, want.MultimerStatus)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("%s: ledger\n got %s\nwant %s", g.PDBID, gj, wj)
	}
}

// checkAnalyses compares the structures curation hands on with those
// exp222 handed pyconfind, and returns how many it compared.
func checkAnalyses(t *testing.T, g goldenLine, res *Result) int {
	t.Helper()
	mono := 0
	n := 0
	for _, a := range g.Analyses {
		var st *structure.Structure
		switch a.Kind {
		case "monomer":
			if mono >= len(res.Monomers) {
				t.Errorf("%s: exp222 analysed monomer %s, curation kept only %d chains", g.PDBID, a.EntryID, len(res.Monomers))
				continue
			}
			m := res.Monomers[mono]
			mono++
			if id := g.PDBID + "_" + m.Chain.ChainID; id != a.EntryID {
				t.Errorf("%s: monomer %d is %s, exp222 %s", g.PDBID, mono, id, a.EntryID)
			}
			st = m.Structure
		case "multimer":
			if res.Multimer == nil {
				t.Errorf("%s: exp222 analysed the assembly, curation handed on none (%s)", g.PDBID, res.MultimerStatus)
				continue
			}
			st = res.Multimer
		default:
			t.Fatalf("%s: analysis kind %q", g.PDBID, a.Kind)
		}
		n++
		if st.Name != a.StructureName {
			t.Errorf("%s %s: structure name %q, exp222 %q", g.PDBID, a.EntryID, st.Name, a.StructureName)
		}
		if got, want := model0Chains(st), rawStrings(a.Model0Chains); !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s: model 0 chains\n got %v\nwant %v", g.PDBID, a.EntryID, got, want)
		}
	}
	if mono != len(res.Monomers) {
		t.Errorf("%s: curation kept %d monomers, exp222 analysed %d", g.PDBID, len(res.Monomers), mono)
	}
	return n
}
