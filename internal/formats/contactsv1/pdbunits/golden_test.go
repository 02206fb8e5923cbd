package pdbunits

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/curation"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus/pdbgolden"
)

// goldenLine is a golden line with its analyses decoded.
type goldenLine struct {
	pdbgolden.Line
	Analyses []goldenAnalysis
}

type goldenAnalysis struct {
	Kind      string  `json:"kind"`
	Outcome   string  `json:"outcome"`
	EntryID   string  `json:"entry_id"`
	ErrorType *string `json:"error_type"`
	Error     *string `json:"error"`
	Record    *struct {
		ResName []string  `json:"residue_resname"`
		ResNum  []int64   `json:"residue_resnum"`
		Chain   []string  `json:"residue_chain"`
		I       []int64   `json:"contact_seq_i"`
		J       []int64   `json:"contact_seq_j"`
		Degree  []float64 `json:"contact_degree"`
		PLDDT   *float64  `json:"global_plddt"`
	} `json:"record"`
}

// analysis is the golden record as our analysis record.
func (g goldenAnalysis) analysis() (*contactsv1.Analysis, error) {
	if g.Record == nil {
		kind := confind.ErrNoProtein
		if g.ErrorType != nil && *g.ErrorType == "IndexError" {
			kind = confind.ErrNoNativeAtom
		}
		msg := ""
		if g.Error != nil {
			msg = *g.Error
		}
		return nil, &confind.AnalysisError{Kind: kind, Msg: msg}
	}
	r := g.Record
	return &contactsv1.Analysis{EntryID: g.EntryID, GlobalPLDDT: r.PLDDT, ResName: r.ResName, ResNum: r.ResNum,
		ResChain: r.Chain, ContactI: r.I, ContactJ: r.J, Degree: r.Degree}, nil
}

func readGolden(t *testing.T, path string) []goldenLine {
	t.Helper()
	lines, err := pdbgolden.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]goldenLine, len(lines))
	for i, l := range lines {
		out[i].Line = l
		for _, raw := range l.Analyses {
			var a goldenAnalysis
			if err := json.Unmarshal(raw, &a); err != nil {
				t.Fatalf("%s %s: %v", path, l.PDBID, err)
			}
			out[i].Analyses = append(out[i].Analyses, a)
		}
	}
	return out
}

func goldenSets(t *testing.T) (string, []pdbgolden.Set) {
	corpus := testcorpus.Dir(t)
	return corpus, pdbgolden.Sets(corpus)
}

func miniLib(t *testing.T) *confind.Library {
	t.Helper()
	lib, err := confind.Shared(filepath.Join(testcorpus.Dir(t), "golden", "confind-mini-rotlib"))
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// curated reads and curates a selected golden entry as exp222 did.
func curated(t *testing.T, corpus string, g goldenLine) (*curation.Result, Meta) {
	t.Helper()
	e, err := mmcif.ReadEntryFile(filepath.Join(corpus, g.File))
	if err != nil {
		t.Fatalf("%s: %v", g.File, err)
	}
	header := int(g.Metadata.NAssembly1ProteinChains)
	res, err := curation.Curate(e, curation.Options{MaxChains: 60, HeaderChains: &header})
	if err != nil {
		t.Fatalf("%s: %v", g.PDBID, err)
	}
	return res, Meta{PDBID: g.PDBID, ReleaseDate: g.Task.ReleaseDate, Resolution: g.Task.Resolution, Method: g.Task.Method}
}

// rowJSON is a unit's row as exp222's document row (the document and the
// 34 columns), each column as a JSON value.
func rowJSON(t *testing.T, r *Row) map[string]any {
	t.Helper()
	m := map[string]any{"document": r.Doc.Text}
	cols, vals := Columns(), r.Values()
	if len(cols) != len(vals) || len(cols) != 34 {
		t.Fatalf("%d columns, %d values, want 34", len(cols), len(vals))
	}
	for i, c := range cols {
		m[c.Name] = vals[i]
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// diffRow lists the columns where got and exp222's row differ.
func diffRow(got map[string]any, want map[string]json.RawMessage) []string {
	var diffs []string
	for k, raw := range want {
		if k == "shard" || k == "shard_row" {
			continue
		}
		var w any
		_ = json.Unmarshal(raw, &w)
		g, ok := got[k]
		if !ok || !reflect.DeepEqual(g, w) {
			s := fmt.Sprintf("%s: got %.120v, want %.120v", k, g, w)
			diffs = append(diffs, s)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, k+": not an exp222 column")
		}
	}
	sort.Strings(diffs)
	return diffs
}

// sameAnalysis reports whether our record equals exp222's (degrees bit
// for bit).
func sameAnalysis(a *contactsv1.Analysis, g goldenAnalysis) bool {
	w, err := g.analysis()
	if a == nil || err != nil {
		return a == nil && err != nil
	}
	if !reflect.DeepEqual(a.ResName, w.ResName) || !reflect.DeepEqual(a.ResNum, w.ResNum) || !reflect.DeepEqual(a.ResChain, w.ResChain) ||
		!reflect.DeepEqual(a.ContactI, w.ContactI) || !reflect.DeepEqual(a.ContactJ, w.ContactJ) || len(a.Degree) != len(w.Degree) {
		return false
	}
	for i := range a.Degree {
		if math.Float64bits(a.Degree[i]) != math.Float64bits(w.Degree[i]) {
			return false
		}
	}
	return true
}

// compareEntry compares the entry's documents and ledger row with
// exp222's and returns the units that differ (by index) and whether the
// ledger differs.
func compareEntry(t *testing.T, g goldenLine, got *Entry) (bad map[int][]string, ledgerDiff string) {
	t.Helper()
	bad = map[int][]string{}
	gl, _ := json.Marshal(got.Ledger)
	var a, b any
	_ = json.Unmarshal(gl, &a)
	_ = json.Unmarshal(g.Ledger, &b)
	if !reflect.DeepEqual(a, b) {
		ledgerDiff = fmt.Sprintf("ledger\n got %s\nwant %s", gl, g.Ledger)
	}
	if len(got.Units) != len(g.Analyses) {
		t.Errorf("%s: %d units, exp222 analysed %d structures", g.PDBID, len(got.Units), len(g.Analyses))
		return bad, ledgerDiff
	}
	d := 0
	for i, u := range got.Units {
		ga := g.Analyses[i]
		if u.EntryID != ga.EntryID || u.Subset != ga.Kind {
			bad[i] = append(bad[i], fmt.Sprintf("unit %s (%s), exp222 %s (%s)", u.EntryID, u.Subset, ga.EntryID, ga.Kind))
			continue
		}
		if u.Outcome != ga.Outcome {
			bad[i] = append(bad[i], fmt.Sprintf("outcome %s, exp222 %s", u.Outcome, ga.Outcome))
			continue
		}
		if u.Row == nil {
			continue
		}
		if d >= len(g.Documents) {
			bad[i] = append(bad[i], "a document exp222 did not write")
			continue
		}
		if diffs := diffRow(rowJSON(t, u.Row), g.Documents[d]); len(diffs) > 0 {
			bad[i] = diffs
		}
		d++
	}
	if d != len(g.Documents) {
		t.Errorf("%s: %d documents, exp222 wrote %d", g.PDBID, d, len(g.Documents))
	}
	return bad, ledgerDiff
}

// goldenAnalyzer hands back exp222's analyses in call order: the document
// step tested apart from ConFind.
func goldenAnalyzer(t *testing.T, g goldenLine) analyzer {
	next := 0
	return func(st *structure.Structure, maxChains int) (*contactsv1.Analysis, error) {
		if next >= len(g.Analyses) {
			t.Fatalf("%s: analysis %d asked for, exp222 made %d", g.PDBID, next+1, len(g.Analyses))
		}
		want := 1
		if g.Analyses[next].Kind == SubsetMultimer {
			want = 60
		}
		if maxChains != want {
			t.Errorf("%s %s: max_chains %d, exp222 %d", g.PDBID, g.Analyses[next].EntryID, maxChains, want)
		}
		next++
		return g.Analyses[next-1].analysis()
	}
}

// TestGoldenFromRecords: with exp222's own analyses (the golden records)
// in place of ConFind, every document (entry id, sha1, all 35 columns),
// every unit's outcome and every ledger row equal exp222's.
func TestGoldenFromRecords(t *testing.T) {
	corpus, sets := goldenSets(t)
	for _, set := range sets {
		clusters, err := ReadClustersFile(set.Clusters())
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, g := range readGolden(t, set.Path()) {
			if g.EntryFilter != "selected" {
				continue
			}
			res, meta := curated(t, corpus, g)
			got, err := build(res, meta, Options{Library: &confind.Library{}, Clusters: clusters, MaxChains: 60}, goldenAnalyzer(t, g))
			if err != nil {
				t.Fatalf("%s: %v", g.PDBID, err)
			}
			bad, ledger := compareEntry(t, g, got)
			if ledger != "" {
				t.Errorf("%s: %s", g.PDBID, ledger)
			} else {
				counts["ledger"]++
			}
			for i, u := range got.Units {
				if d := bad[i]; len(d) > 0 {
					t.Errorf("%s %s:\n  %v", g.PDBID, u.EntryID, d)
				} else if u.Row != nil {
					counts[u.Subset]++
				}
			}
		}
		t.Logf("%s: %d monomer and %d multimer documents equal exp222's, %d ledger rows", set.File, counts[SubsetMonomer], counts[SubsetMultimer], counts["ledger"])
		if counts[SubsetMonomer] != set.Monomers || counts[SubsetMultimer] != set.Multimers {
			t.Errorf("%s: %d monomer and %d multimer documents equal, want %d and %d", set.File, counts[SubsetMonomer], counts[SubsetMultimer], set.Monomers, set.Multimers)
		}
	}
}

// TestGoldenThroughConFind is Build itself (our ConFind, the mini
// library) against exp222: every document, outcome and ledger row. A
// difference in a unit whose analysis differs from pyconfind's (the
// golden record: positions, contacts, degrees bit for bit) is ConFind's
// and is logged and counted (internal/confind's TestGoldenPDBCuration
// fails on it); any other difference fails here.
func TestGoldenThroughConFind(t *testing.T) {
	corpus, sets := goldenSets(t)
	lib := miniLib(t)
	for _, set := range sets {
		clusters, err := ReadClustersFile(set.Clusters())
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, g := range readGolden(t, set.Path()) {
			if g.EntryFilter != "selected" {
				continue
			}
			res, meta := curated(t, corpus, g)
			var ours []*contactsv1.Analysis
			conf := confindAnalyzer(lib)
			rec := func(st *structure.Structure, maxChains int) (*contactsv1.Analysis, error) {
				a, err := conf(st, maxChains)
				ours = append(ours, a)
				return a, err
			}
			got, err := build(res, meta, Options{Library: lib, Clusters: clusters, MaxChains: 60}, rec)
			if err != nil {
				t.Fatalf("%s: %v", g.PDBID, err)
			}
			bad, ledger := compareEntry(t, g, got)
			confindDiffers := false
			for i, u := range got.Units {
				if i >= len(ours) || i >= len(g.Analyses) {
					break
				}
				differs := !sameAnalysis(ours[i], g.Analyses[i])
				confindDiffers = confindDiffers || differs
				switch d := bad[i]; {
				case len(d) > 0 && differs:
					counts["confind"]++
					t.Logf("%s %s: ConFind's analysis differs from pyconfind's, so the document does (%d columns)", g.PDBID, u.EntryID, len(d))
				case len(d) > 0:
					t.Errorf("%s %s (ConFind's analysis equal to pyconfind's):\n  %v", g.PDBID, u.EntryID, d)
				case u.Row != nil:
					counts[u.Subset]++
				}
			}
			switch {
			case ledger == "":
				counts["ledger"]++
			case confindDiffers:
				t.Logf("%s: ledger differs, with an analysis of ConFind's: %s", g.PDBID, ledger)
			default:
				t.Errorf("%s: %s", g.PDBID, ledger)
			}
		}
		t.Logf("%s through ConFind: %d of %d monomer and %d of %d multimer documents equal exp222's, %d ledger rows; %d units differ with ConFind's analysis",
			set.File, counts[SubsetMonomer], set.Monomers, counts[SubsetMultimer], set.Multimers, counts["ledger"], counts["confind"])
		if counts[SubsetMonomer]+counts[SubsetMultimer]+counts["confind"] < set.Monomers+set.Multimers {
			t.Errorf("%s: documents unaccounted for", set.File)
		}
	}
}
