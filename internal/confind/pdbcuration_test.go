package confind

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/curation"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus/pdbgolden"
)

// curationLine is a golden line (pdbgolden) with its analyses decoded.
type curationLine struct {
	pdbgolden.Line
	Analyses []curationAnalysis
}

type curationAnalysis struct {
	Kind          string            `json:"kind"`
	Outcome       string            `json:"outcome"`
	EntryID       string            `json:"entry_id"`
	StructureName string            `json:"structure_name"`
	Model0Chains  [][3]any          `json:"model0_chains"`
	Kwargs        map[string]any    `json:"pyconfind_kwargs"`
	Positions     []json.RawMessage `json:"positions"`
	Contacts      [][3]float64      `json:"contacts"`
	ContactsHex   []string          `json:"contacts_hex"`
	Record        *goldenRecord     `json:"record"`
}

func readCuration(tb testing.TB, path string) []curationLine {
	tb.Helper()
	lines, err := pdbgolden.Read(path)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]curationLine, len(lines))
	for i, l := range lines {
		out[i].Line = l
		out[i].Analyses = make([]curationAnalysis, len(l.Analyses))
		for k, raw := range l.Analyses {
			if err := json.Unmarshal(raw, &out[i].Analyses[k]); err != nil {
				tb.Fatalf("%s %s analysis %d: %v", path, l.PDBID, k, err)
			}
		}
	}
	return out
}

// TestGoldenPDBCuration checks pyconfind's analyses of
// golden/pdb-curation/pdb-curation.jsonl (exp222 on 43 real PDB entries)
// and of its edge/pdb-curation-edge.jsonl (15 crafted entries): for each
// analysis the test builds the structure exp222 handed pyconfind (the
// cleaned ASU chain alone, or assembly 1 expanded, cleaned and cut to the
// chains curation kept), first checking its chains, residue and atom counts
// against model0_chains, then compares our native-only analysis with the
// golden positions (phi/psi, rotamer counts) and contacts (every degree's
// bits).
func TestGoldenPDBCuration(t *testing.T) {
	dir := testcorpus.Dir(t)
	lib := miniLib(t)
	for _, set := range []struct {
		file               string
		monomers, multimer int
	}{
		{"pdb-curation.jsonl", 58, 13},
		{filepath.Join("edge", "pdb-curation-edge.jsonl"), 20, 5},
	} {
		t.Run(filepath.Base(set.file), func(t *testing.T) {
			lines := readCuration(t, filepath.Join(dir, "golden", "pdb-curation", set.file))
			counts := map[string]int{}
			for _, g := range lines {
				if len(g.Analyses) == 0 {
					continue
				}
				var cur *curation.Result
				for _, a := range g.Analyses {
					counts[a.Kind]++
					t.Run(a.EntryID, func(t *testing.T) {
						if cur == nil {
							e, err := mmcif.ReadEntryFile(filepath.Join(dir, g.File))
							if err != nil {
								t.Fatalf("%s: %v", g.File, err)
							}
							header := int(g.Metadata.NAssembly1ProteinChains)
							if cur, err = curation.Curate(e, curation.Options{MaxChains: 60, HeaderChains: &header}); err != nil {
								t.Fatalf("%s: %v", g.File, err)
							}
						}
						checkCurationAnalysis(t, cur, a, lib)
					})
				}
			}
			if counts["monomer"] != set.monomers || counts["multimer"] != set.multimer {
				t.Errorf("%d monomer and %d multimer analyses, want %d and %d", counts["monomer"], counts["multimer"], set.monomers, set.multimer)
			}
		})
	}
}

// checkCurationAnalysis takes the structure of one analysis from
// exp222's curation of the entry (internal/curation: the cleaned ASU chain
// alone, or assembly 1 expanded, cleaned and cut to the kept chains),
// checks its chains, residue and atom counts against model0_chains, and
// compares our analysis with the golden one.
func checkCurationAnalysis(t *testing.T, cur *curation.Result, a curationAnalysis, lib *Library) {
	t.Helper()
	// collapsed_to_monomer is decided after pyconfind's analysis, which
	// the line holds.
	if a.Outcome != "document" && a.Outcome != "collapsed_to_monomer" {
		t.Fatalf("outcome %q: this test knows only analyses pyconfind completed", a.Outcome)
	}
	want := map[string]any{"native_only": true, "contact_distance": 3.0, "dcut": 25.0, "clash_distance": 2.0, "assembly": nil, "rotamer_library": nil}
	for k, v := range want {
		if got, ok := a.Kwargs[k]; !ok || got != v {
			t.Fatalf("pyconfind_kwargs[%s] = %v, want %v (the settings Compute(native-only) implements)", k, got, v)
		}
	}
	if len(a.Kwargs) != len(want) {
		t.Fatalf("pyconfind_kwargs %v: unexpected keys", a.Kwargs)
	}
	if len(a.Positions) == 0 || len(a.Model0Chains) == 0 {
		t.Fatal("the golden analysis has no positions or no model0_chains")
	}
	var st *structure.Structure
	switch a.Kind {
	case "monomer":
		for _, m := range cur.Monomers {
			if len(a.Model0Chains) == 1 && m.Chain.ChainID == a.Model0Chains[0][0] {
				st = m.Structure
			}
		}
	case "multimer":
		st = cur.Multimer
	default:
		t.Fatalf("kind %q", a.Kind)
	}
	if st == nil {
		t.Fatalf("curation gave no %s structure with chains %v (multimer status %q)", a.Kind, a.Model0Chains, cur.MultimerStatus)
	}
	if st.Name != a.StructureName {
		t.Errorf("structure name %q, want %q", st.Name, a.StructureName)
	}
	if got, want := chainSummary(st.Models[0]), summaryOf(a.Model0Chains); got != want {
		t.Fatalf("curated structure differs from the one pyconfind saw:\n got  %s\n want %s", got, want)
	}
	r, err := Compute(st, lib, true)
	if err != nil {
		t.Fatal(err)
	}
	checkPositions(t, r.Positions, a.Positions)
	checkContacts(t, r.Contacts, a.Contacts, a.ContactsHex)
	checkCurationRecord(t, st, r, a)
}

// checkCurationRecord compares MarinFold's record of the analysis
// (analyzed_to_row: canonical names, numbers, chains, contacts and the
// mean CA B as global_plddt) with ours; entry_id is MarinFold's choice
// (<pdb>_<chain>, <pdb>_assembly1), not pyconfind's, and is not compared.
func checkCurationRecord(t *testing.T, st *structure.Structure, r *Result, a curationAnalysis) {
	t.Helper()
	if a.Record == nil {
		t.Fatal("the golden analysis has no record")
	}
	plddt := GlobalPLDDT(st)
	got := goldenRecord{EntryID: a.Record.EntryID, SeqLen: len(r.Positions), NumContacts: len(r.Contacts), GlobalPLDDT: &plddt,
		ContactSeqI: []int64{}, ContactSeqJ: []int64{}, ContactDegree: []float64{}}
	for i := range r.Positions {
		p := &r.Positions[i]
		got.ResidueResname = append(got.ResidueResname, Canonical(p.ResName))
		got.ResidueResnum = append(got.ResidueResnum, int64(p.ResNum))
		got.ResidueChain = append(got.ResidueChain, p.Chain)
	}
	for _, c := range r.Contacts {
		got.ContactSeqI = append(got.ContactSeqI, int64(c.I))
		got.ContactSeqJ = append(got.ContactSeqJ, int64(c.J))
		got.ContactDegree = append(got.ContactDegree, c.Degree)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(a.Record)
	if string(gj) != string(wj) {
		t.Errorf("record differs:\n got  %.300s\n want %.300s", gj, wj)
	}
	if a.Record.GlobalPLDDT == nil || math.Float64bits(plddt) != math.Float64bits(*a.Record.GlobalPLDDT) {
		t.Errorf("global_plddt = %v, want %v", plddt, a.Record.GlobalPLDDT)
	}
}

func summaryOf(chains [][3]any) string {
	var b strings.Builder
	for _, c := range chains {
		fmt.Fprintf(&b, "[%v %v %v]", c[0], c[1], c[2])
	}
	return b.String()
}

func chainSummary(m structure.Model) string {
	var b strings.Builder
	for _, c := range m.Chains {
		n := 0
		for _, r := range c.Residues {
			n += len(r.Atoms)
		}
		fmt.Fprintf(&b, "[%s %d %d]", c.Name, len(c.Residues), n)
	}
	return b.String()
}
