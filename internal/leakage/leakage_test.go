package leakage

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/pdbunits"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// crafted is a cluster file, an eval id list, an eval manifest and five
// documents in which every rule of the audit decides a figure:
//
//   - cluster ids are line numbers, empty lines included: line 2 is empty,
//     so 9AAB_1 is cluster 3 (3ddd's multimer hits it only so);
//   - eval ids are compared lower-case (9AAA_B's pdb_id is upper-case);
//   - a document counts once however many of its chains hit (3ddd's
//     clusters [1, 3, 3]);
//   - covered is over every eval id (4: 9aad is in no cluster), not over
//     the clustered ones (3);
//   - the eval manifest's sequence is hashed in three-letter space with
//     white space removed and case folded ("m k v" is 2ccc_A's "MKV"),
//     its empty input_seq skipped, and a repeated hash keeps its first
//     stem (ev1, not ev3).
const (
	craftedClusters = "1BBB_1 9AAA_1\r\n2CCC_1\n\n9AAB_1 3DDD_1\r9AAC_1\n"
	craftedEvalIDs  = "pdb_id,chain,stem\n9aaa,A,9aaa_A\n 9AAB ,A,9aab_A\n9aac,A,9aac_A\n9aad,A,9aad_A\n"
	craftedManifest = "dataset,stem,input_seq\nx,ev1,m k v\nx,ev2,\nx,ev3,MKV\n"
)

func craftedDocs() []Doc {
	return []Doc{
		{EntryID: "1bbb_A", Subset: "monomer", PDBID: "1bbb", SeqSHA1: "other", ClusterIDs: []int64{0}},
		{EntryID: "2ccc_A", Subset: "monomer", PDBID: "2ccc", SeqSHA1: SeqSHA1("MKV"), ClusterIDs: []int64{1}},
		{EntryID: "3ddd_assembly1", Subset: "multimer", PDBID: "3ddd", SeqSHA1: "x", ClusterIDs: []int64{1, 3, 3}},
		{EntryID: "4eee_A", Subset: "monomer", PDBID: "4eee", ClusterIDs: []int64{-1}},
		{EntryID: "9AAA_B", Subset: "monomer", PDBID: "9AAA", SeqSHA1: "y", ClusterIDs: []int64{0}},
	}
}

func craftedEval(t *testing.T) *Eval {
	t.Helper()
	cl, err := ReadClusters(strings.NewReader(craftedClusters), "crafted")
	if err != nil {
		t.Fatal(err)
	}
	ids, stems, err := ReadEvalIDs(strings.NewReader(craftedEvalIDs), "eval.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(stems) != 4 || !stems["9aab_A"] {
		t.Errorf("stems %v", stems)
	}
	ev := NewEval(ids, cl, true)
	n, err := ReadEvalSeqs(strings.NewReader(craftedManifest), "manifest.csv", ev)
	if err != nil || n != 2 || ev.Sequences() != 1 {
		t.Fatalf("eval manifest: %d rows with a sequence, %d hashes, %v; want 2, 1", n, ev.Sequences(), err)
	}
	return ev
}

// row is the part of a Figures row the tests compare, pointers read.
type row struct {
	Docs, Present, Exact, Homologous, Clustered, Covered int64
	ExactFrac, HomFrac, CovFrac                          float64
}

func flat(f Figures) row {
	r := row{Docs: f.Documents, Present: int64(f.EvalPDBIDsPresent), Exact: -1, Homologous: -1, Clustered: -1, Covered: -1,
		ExactFrac: -1, HomFrac: -1, CovFrac: -1}
	if f.ExactSequenceMatches != nil {
		r.Exact, r.ExactFrac = *f.ExactSequenceMatches, *f.ExactSequenceFraction
	}
	if f.Cluster40Homologous != nil {
		r.Homologous, r.HomFrac = *f.Cluster40Homologous, *f.Cluster40Fraction
		r.Clustered, r.Covered, r.CovFrac = int64(*f.EvalEntriesClustered), int64(*f.EvalEntriesCovered), *f.EvalEntriesCoveredFraction
	}
	return r
}

// TestLeakCrafted: the crafted case's figures, worked out by hand above.
// Each rule of the audit changes at least one of them.
func TestLeakCrafted(t *testing.T) {
	a := NewAudit(craftedEval(t))
	for _, d := range craftedDocs() {
		a.Add(d)
	}
	got := a.Figures()
	want := map[string]row{
		"all":       {Docs: 5, Present: 1, Exact: 1, Homologous: 3, Clustered: 3, Covered: 2, ExactFrac: 0.2, HomFrac: 0.6, CovFrac: 0.5},
		"monomers":  {Docs: 4, Present: 1, Exact: 1, Homologous: 2, Clustered: 3, Covered: 1, ExactFrac: 0.25, HomFrac: 0.5, CovFrac: 0.25},
		"multimers": {Docs: 1, Present: 0, Exact: 0, Homologous: 1, Clustered: 3, Covered: 1, ExactFrac: 0, HomFrac: 1, CovFrac: 0.25},
	}
	if len(got) != 3 || got[0].Subset != "all" || got[1].Subset != "monomers" || got[2].Subset != "multimers" {
		t.Fatalf("rows %v, want all, monomers, multimers", got)
	}
	for _, f := range got {
		if r := flat(f); r != want[f.Subset] {
			t.Errorf("%s:\n got %+v\nwant %+v", f.Subset, r, want[f.Subset])
		}
		if f.EvalEntriesTotal != 4 {
			t.Errorf("%s: eval_entries_total %d, want 4", f.Subset, f.EvalEntriesTotal)
		}
	}
	if !slices.Equal(got[0].Examples, []string{"2ccc_A->ev1"}) || !got[0].Leaks() || got[2].Leaks() {
		t.Errorf("examples %q, leaks %v %v; want [2ccc_A->ev1], true, false", got[0].Examples, got[0].Leaks(), got[2].Leaks())
	}
}

// TestLeakWithoutSeqsOrClusters: without eval sequences the exact figures
// are null, without a cluster table the cluster figures; the rest stands.
func TestLeakWithoutSeqsOrClusters(t *testing.T) {
	a := NewAudit(NewEval([]string{"9aaa"}, nil, false))
	for _, d := range craftedDocs() {
		a.Add(d)
	}
	f := a.Figures()[0]
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"exact_sequence_matches":null`, `"cluster40_homologous":null`, `"eval_entries_covered_fraction":null`,
		`"eval_pdb_ids_present":1`, `"documents":5`, `"examples":[]`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("%s: no %s", b, k)
		}
	}
	if !f.Leaks() {
		t.Error("an eval id present is a leak")
	}
	empty := NewAudit(NewEval(nil, map[string]int64{}, true)).Figures()[0]
	if r := flat(empty); r != (row{}) {
		t.Errorf("no documents, no eval ids: %+v, want zeros (qc.py's 0.0 fractions)", r)
	}
}

// TestLeakReadClustersAsPdbunits: ReadClusters gives every member of the
// crafted cluster file and of the golden ones the id that the run's own
// reader (pdbunits, which writes cluster_ids) gives it.
func TestLeakReadClustersAsPdbunits(t *testing.T) {
	sameClusters(t, "crafted", craftedClusters)
	t.Run("golden", func(t *testing.T) {
		dir := testcorpus.Dir(t)
		for _, p := range []string{"golden/pdb-curation/clusters-by-entity-40.txt", "golden/pdb-curation/edge/clusters-by-entity-40.txt"} {
			b, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				t.Fatal(err)
			}
			sameClusters(t, p, string(b))
		}
	})
	if _, err := ReadClusters(strings.NewReader("1ABC_1\n\xff\n"), "bad"); err == nil || !strings.Contains(err.Error(), "bad line 2") {
		t.Errorf("invalid UTF-8: %v, want an error naming line 2", err)
	}
}

func sameClusters(t *testing.T, name, text string) {
	t.Helper()
	mine, err := ReadClusters(strings.NewReader(text), name)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := pdbunits.ReadClusters(strings.NewReader(text), name)
	if err != nil {
		t.Fatal(err)
	}
	if len(mine) != theirs.Len() || len(mine) == 0 {
		t.Errorf("%s: %d members, pdbunits %d", name, len(mine), theirs.Len())
	}
	for key, id := range mine {
		i := strings.LastIndex(key, "_")
		if got := theirs.ID(key[:i], key[i+1:]); got != id {
			t.Errorf("%s: %s is cluster %d here, %d in pdbunits", name, key, id, got)
		}
	}
}

// TestLeakBadEvalFiles: eval files that cannot be read as qc.py reads them
// are errors naming the file (and the line).
func TestLeakBadEvalFiles(t *testing.T) {
	if _, _, err := ReadEvalIDs(strings.NewReader("id,chain\n1abc,A\n"), "ids.csv"); err == nil || !strings.Contains(err.Error(), "ids.csv: no pdb_id column") {
		t.Errorf("no pdb_id column: %v", err)
	}
	if _, _, err := ReadEvalIDs(strings.NewReader("pdb_id\n1abc\n \n"), "ids.csv"); err == nil || !strings.Contains(err.Error(), "ids.csv line 3: empty pdb_id") {
		t.Errorf("empty pdb_id: %v", err)
	}
	if _, err := ReadEvalSeqs(strings.NewReader("stem,seq\na,MKV\n"), "m.csv", NewEval(nil, nil, true)); err == nil || !strings.Contains(err.Error(), "m.csv: want columns stem and input_seq") {
		t.Errorf("no input_seq column: %v", err)
	}
}

// golden is the document rows of exp222's golden run, and its deduped cuts.
type golden struct {
	dir      string
	docs     []Doc
	analyses []struct {
		EntryID, SeqSHA1 string
		Resnames         []string
	}
	cuts  map[string][]Doc
	lines []string // the cluster file's lines
}

func readGolden(t *testing.T) *golden {
	t.Helper()
	g := &golden{dir: filepath.Join(testcorpus.Dir(t), "golden", "pdb-curation"), cuts: map[string][]Doc{}}
	sha := map[string]string{}
	eachLine(t, filepath.Join(g.dir, "pdb-curation.jsonl"), func(b []byte) {
		var e struct {
			Documents []struct {
				EntryID    string  `json:"entry_id"`
				Subset     string  `json:"subset"`
				PDBID      string  `json:"pdb_id"`
				SeqSHA1    string  `json:"resolved_seq_sha1"`
				ClusterIDs []int64 `json:"cluster_ids"`
			} `json:"documents"`
			Analyses []struct {
				Outcome string `json:"outcome"`
				EntryID string `json:"entry_id"`
				Record  struct {
					Resnames []string `json:"residue_resname"`
				} `json:"record"`
			} `json:"analyses"`
		}
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		for _, d := range e.Documents {
			g.docs = append(g.docs, Doc(d))
			sha[d.EntryID] = d.SeqSHA1
		}
		for _, a := range e.Analyses {
			if a.Outcome == "document" {
				g.analyses = append(g.analyses, struct {
					EntryID, SeqSHA1 string
					Resnames         []string
				}{a.EntryID, sha[a.EntryID], a.Record.Resnames})
			}
		}
	})
	eachLine(t, filepath.Join(g.dir, "deduped.jsonl"), func(b []byte) {
		var d struct {
			Cut        string  `json:"cut"`
			EntryID    string  `json:"entry_id"`
			Subset     string  `json:"subset"`
			PDBID      string  `json:"pdb_id"`
			SeqSHA1    string  `json:"resolved_seq_sha1"`
			ClusterIDs []int64 `json:"cluster_ids"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		g.cuts[d.Cut] = append(g.cuts[d.Cut], Doc{d.EntryID, d.Subset, d.PDBID, d.SeqSHA1, d.ClusterIDs})
	})
	b, err := os.ReadFile(filepath.Join(g.dir, "clusters-by-entity-40.txt"))
	if err != nil {
		t.Fatal(err)
	}
	g.lines = strings.Split(string(b), "\n")
	if len(g.docs) != 71 || len(g.cuts["deduped"]) != 56 || len(g.cuts["deduped_monomers"]) != 43 {
		t.Fatalf("golden: %d documents, cuts %d and %d; want 71, 56, 43", len(g.docs), len(g.cuts["deduped"]), len(g.cuts["deduped_monomers"]))
	}
	return g
}

func eachLine(t *testing.T, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// audit runs the package over docs with eval ids ids, the eval sequences
// taken from the golden run's monomer documents of those ids.
func (g *golden) audit(t *testing.T, docs []Doc, ids []string) []Figures {
	t.Helper()
	f, err := os.Open(filepath.Join(g.dir, "clusters-by-entity-40.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cl, err := ReadClusters(f, "golden")
	if err != nil {
		t.Fatal(err)
	}
	ev := NewEval(ids, cl, true)
	ev.AddSeqsFromDocs(g.docs, nil)
	a := NewAudit(ev)
	for _, d := range docs {
		a.Add(d)
	}
	return a.Figures()
}

// TestLeakGoldenPython: the figures of an independent Python computation
// over the golden files (the eval sequences: the resolved_seq_sha1 of the
// eval entries' monomer documents), run once and written here:
//
//	G=../shared/corpus/golden/pdb-curation  (from the repository root)
//	python3 internal/leakage/testdata/golden_leak.py $G 3ptb 4i6p
//	python3 internal/leakage/testdata/golden_dedup_leak.py $G 4hhb 1f2n
//
// (one run per eval set below). The scripts number the cluster file's
// lines with str.split and count with sets. {1aki} is exp222's golden
// eval set: nothing of the corpus shares its cluster or sequence.
func TestLeakGoldenPython(t *testing.T) {
	g := readGolden(t)
	type want struct{ docs, present, exact, homologous, clustered, covered int64 }
	for _, tc := range []struct {
		ids  string
		rows map[string]want // all, monomers, multimers; deduped, deduped_monomers
	}{
		{"1aki", map[string]want{"all": {71, 0, 0, 0, 1, 0}, "monomers": {58, 0, 0, 0, 1, 0}, "multimers": {13, 0, 0, 0, 1, 0}}},
		{"3ptb", map[string]want{"all": {71, 1, 1, 2, 1, 1}, "monomers": {58, 1, 1, 2, 1, 1}, "multimers": {13, 0, 0, 0, 1, 0}}},
		{"4i6p", map[string]want{"all": {71, 1, 3, 3, 1, 1}, "monomers": {58, 1, 3, 2, 1, 1}, "multimers": {13, 1, 0, 1, 1, 1}}},
		{"3ptb 4i6p", map[string]want{"all": {71, 2, 4, 5, 2, 2}, "monomers": {58, 2, 4, 4, 2, 2}, "multimers": {13, 1, 0, 1, 2, 1}}},
		{"4hhb 1f2n", map[string]want{"all": {71, 2, 7, 8, 2, 2}, "monomers": {58, 2, 7, 7, 2, 2}, "multimers": {13, 1, 0, 1, 2, 1},
			"deduped": {56, 2, 3, 4, 2, 2}, "deduped_monomers": {43, 2, 3, 3, 2, 2}}},
		{"2w83 5i55 1aki", map[string]want{"all": {71, 2, 6, 8, 3, 2}, "monomers": {58, 2, 6, 6, 3, 2}, "multimers": {13, 2, 0, 2, 3, 2},
			"deduped": {56, 2, 3, 5, 3, 2}, "deduped_monomers": {43, 2, 3, 3, 3, 2}}},
	} {
		ids := strings.Fields(tc.ids)
		got := map[string]Figures{}
		for _, f := range g.audit(t, g.docs, ids) {
			got[f.Subset] = f
		}
		for _, cut := range []string{"deduped", "deduped_monomers"} {
			got[cut] = g.audit(t, g.cuts[cut], ids)[0]
		}
		for name, w := range tc.rows {
			r := flat(got[name])
			if g := (want{r.Docs, r.Present, r.Exact, r.Homologous, r.Clustered, r.Covered}); g != w {
				t.Errorf("eval %s, %s: got %+v, Python %+v", tc.ids, name, g, w)
			}
		}
	}
}

// TestLeakGoldenBruteForce: with each golden entry in turn as the eval set
// (and exp222's {1aki}), the package's figures equal a brute-force count
// that reads the cluster file's lines by index and compares every
// document with every eval sequence, per subset and for the deduped cuts.
func TestLeakGoldenBruteForce(t *testing.T) {
	g := readGolden(t)
	var sets [][]string
	seen := map[string]bool{}
	for _, d := range g.docs {
		if !seen[d.PDBID] {
			seen[d.PDBID] = true
			sets = append(sets, []string{d.PDBID})
		}
	}
	sets = append(sets, []string{"1aki"}, []string{"1gbt", "4hhb", "5eil", "7gsa"})
	nonzero := 0
	for _, ids := range sets {
		got := map[string]Figures{}
		for _, f := range g.audit(t, g.docs, ids) {
			got[f.Subset] = f
		}
		for _, cut := range []string{"deduped", "deduped_monomers"} {
			got[cut] = g.audit(t, g.cuts[cut], ids)[0]
		}
		for name, docs := range map[string][]Doc{"all": g.docs, "monomers": bySubset(g.docs, "monomer"),
			"multimers": bySubset(g.docs, "multimer"), "deduped": g.cuts["deduped"], "deduped_monomers": g.cuts["deduped_monomers"]} {
			w := g.bruteForce(docs, ids)
			if r := flat(got[name]); r != w {
				t.Errorf("eval %v, %s:\n got %+v\nwant %+v", ids, name, r, w)
			}
			if w.Exact > 0 && w.Homologous > w.Exact {
				nonzero++
			}
		}
	}
	if nonzero < 20 {
		t.Errorf("only %d rows with figures beyond the trivial: the comparison proves little", nonzero)
	}
}

func bySubset(docs []Doc, s string) []Doc {
	var out []Doc
	for _, d := range docs {
		if d.Subset == s {
			out = append(out, d)
		}
	}
	return out
}

// bruteForce counts qc.py's figures for docs against eval ids, the eval
// sequences being the golden monomer documents of those ids.
func (g *golden) bruteForce(docs []Doc, ids []string) row {
	isEval := func(member string) (string, bool) {
		id := strings.ToLower(member[:strings.Index(member, "_")])
		return id, slices.Contains(ids, id)
	}
	var r row
	present, covered, clustered := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, line := range g.lines {
		for _, m := range strings.Fields(line) {
			if id, ok := isEval(m); ok {
				clustered[id] = true
			}
		}
	}
	for _, d := range docs {
		r.Docs++
		if slices.Contains(ids, d.PDBID) {
			present[d.PDBID] = true
		}
		for _, e := range g.docs {
			if e.Subset == "monomer" && slices.Contains(ids, e.PDBID) && e.SeqSHA1 == d.SeqSHA1 {
				r.Exact++
				break
			}
		}
		hit := false
		for _, c := range d.ClusterIDs {
			if c < 0 {
				continue
			}
			for _, m := range strings.Fields(g.lines[c]) {
				if id, ok := isEval(m); ok {
					hit, covered[id] = true, true
				}
			}
		}
		if hit {
			r.Homologous++
		}
	}
	r.Present, r.Clustered, r.Covered = int64(len(present)), int64(len(clustered)), int64(len(covered))
	frac := func(n, d int64, p float64) float64 {
		if d == 0 {
			return 0
		}
		return float64(int64(float64(n)/float64(d)*p+0.5)) / p
	}
	r.ExactFrac, r.HomFrac, r.CovFrac = frac(r.Exact, r.Docs, 1e6), frac(r.Homologous, r.Docs, 1e6), frac(r.Covered, int64(len(ids)), 1e4)
	return r
}

// TestLeakSeqSHA1Golden: an eval manifest's one-letter sequence hashes to
// the resolved_seq_sha1 of the document with that sequence. Each golden
// document's residues (its analysis record, three-letter) are written in
// one letter (X for UNK) and hashed with SeqSHA1: 71 of 71 equal.
func TestLeakSeqSHA1Golden(t *testing.T) {
	g := readGolden(t)
	one := map[string]string{"ALA": "A", "ARG": "R", "ASN": "N", "ASP": "D", "CYS": "C", "GLN": "Q", "GLU": "E", "GLY": "G",
		"HIS": "H", "ILE": "I", "LEU": "L", "LYS": "K", "MET": "M", "PHE": "F", "PRO": "P", "SER": "S", "THR": "T",
		"TRP": "W", "TYR": "Y", "VAL": "V", "UNK": "x"}
	letters := map[string]bool{}
	for _, a := range g.analyses {
		var b strings.Builder
		for i, r := range a.Resnames {
			l, ok := one[r]
			if !ok {
				t.Fatalf("%s: residue %q", a.EntryID, r)
			}
			if i%7 == 3 {
				b.WriteString(" ") // white space is ignored
			}
			b.WriteString(l)
			letters[l] = true
		}
		if got := SeqSHA1(b.String()); got != a.SeqSHA1 || got == "" {
			t.Errorf("%s: SeqSHA1 %s, resolved_seq_sha1 %s", a.EntryID, got, a.SeqSHA1)
		}
	}
	if len(g.analyses) != 71 || len(letters) < 20 {
		t.Errorf("%d analyses, %d distinct letters: want 71 and all 20", len(g.analyses), len(letters))
	}
	if SeqSHA1(" \n") != "" || SeqSHA1("B") != SeqSHA1("u") {
		t.Error("empty sequence not skipped, or a non-standard letter not UNK")
	}
}

// TestLeakGoldenStems: with the eval CSV's stems, only the chains
// evaluated give eval sequences: eval 4i6p with stem 4i6p_A matches
// 3zee_A and 4i6p_A (one sequence), without stems 4i6p_B as well.
func TestLeakGoldenStems(t *testing.T) {
	g := readGolden(t)
	for _, tc := range []struct {
		stems map[string]bool
		taken int
		exact int64
	}{{map[string]bool{"4i6p_A": true}, 1, 2}, {nil, 2, 3}} {
		ev := NewEval([]string{"4i6p"}, nil, true)
		if n := ev.AddSeqsFromDocs(g.docs, tc.stems); n != tc.taken {
			t.Errorf("stems %v: %d documents taken, want %d", tc.stems, n, tc.taken)
		}
		a := NewAudit(ev)
		for _, d := range g.docs {
			a.Add(d)
		}
		if f := a.Figures()[0]; *f.ExactSequenceMatches != tc.exact {
			t.Errorf("stems %v: %d exact matches (%q), want %d", tc.stems, *f.ExactSequenceMatches, f.Examples, tc.exact)
		}
	}
}

// TestLeakFractionsAsExp222: the fractions of exp222's own
// data/leakage_audit.csv (MarinFold 19f81b6), rounded as qc.py rounds,
// from its counts.
func TestLeakFractionsAsExp222(t *testing.T) {
	for _, c := range []struct {
		n, d   int64
		places int
		want   float64
	}{
		{44, 602859, 6, 7.3e-05}, {8400, 602859, 6, 0.013934}, {277, 552, 4, 0.5018},
		{1, 85660, 6, 1.2e-05}, {2410, 85660, 6, 0.028134}, {173, 552, 4, 0.3134},
		{5, 72524, 6, 6.9e-05}, {1465, 72524, 6, 0.0202}, {5, 41661, 6, 0.00012}, {93, 41661, 6, 0.002232},
	} {
		if got := fraction(c.n, c.d, c.places); got != c.want {
			t.Errorf("%d/%d to %d places: %v, exp222 %v", c.n, c.d, c.places, got, c.want)
		}
	}
}
