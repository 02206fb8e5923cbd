package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/leakage"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// leakCols are the columns of a PDB run's documents the audit reads, and
// one it does not.
var leakCols = []format.Column{{Name: "entry_id", Type: format.String}, {Name: "document", Type: format.String},
	{Name: "subset", Type: format.String}, {Name: "pdb_id", Type: format.String},
	{Name: "resolved_seq_sha1", Type: format.String}, {Name: "cluster_ids", Type: format.Int64List}}

// writeLeakShards writes shards as a run's part-NNNNN-of-NNNNN.parquet,
// with options in their accounting.
func writeLeakShards(t *testing.T, dir string, cols []format.Column, options map[string]string, shards ...[][]any) {
	t.Helper()
	for i, rows := range shards {
		w, err := corpus.NewWriter(corpus.Schema{Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		data, err := w.Finish(corpus.Accounting{RowsIn: int64(len(rows)), DocsOut: int64(len(rows)), Options: options})
		if err != nil {
			t.Fatal(err)
		}
		name := []string{"part-00000-of-00002.parquet", "part-00001-of-00002.parquet"}[i]
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readLeakJSON(t *testing.T, path string) leakageDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d leakageDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLeakageCommand: a two-shard run whose clusters option names a
// cluster file (the default --clusters), an eval id list and an eval
// manifest. The figures land in RUN_OUT/report/leakage.json; a rerun
// with the same figures is a no-op and one with others is refused;
// --fail-on-leak exits 3 on an exact match; bad inputs are errors.
func TestLeakageCommand(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	os.Mkdir(run, 0o755)
	clusters := filepath.Join(dir, "clusters.txt")
	os.WriteFile(clusters, []byte("1BBB_1 9AAA_1\n2CCC_1\n"), 0o644)
	evalCSV := filepath.Join(dir, "eval.csv")
	os.WriteFile(evalCSV, []byte("pdb_id,chain,stem\n9aaa,A,9aaa_A\n9aab,A,9aab_A\n"), 0o644)
	seqs := filepath.Join(dir, "eval_manifest.csv")
	os.WriteFile(seqs, []byte("stem,input_seq\nev1,MKV\n"), 0o644)
	writeLeakShards(t, run, leakCols, map[string]string{"clusters": clusters},
		[][]any{{"1bbb_A", "d", "monomer", "1bbb", "s1", []int64{0}}, {"1bbb_assembly1", "d", "multimer", "1bbb", "s2", []int64{0, 0}}},
		[][]any{{"2ccc_A", "d", "monomer", "2ccc", leakage.SeqSHA1("MKV"), []int64{1}}, {"3ddd_A", "d", "monomer", "3ddd", nil, nil}})
	ctx := context.Background()
	if err := runLeakage(ctx, []string{run, "--eval", evalCSV, "--eval-seqs", seqs}); err != nil {
		t.Fatal(err)
	}
	d := readLeakJSON(t, filepath.Join(run, "report", "leakage.json"))
	if d.Shards != 2 || d.Eval.PDBIDs != 2 || d.Eval.ClustersFile != clusters || *d.Eval.Clustered != 1 || *d.Eval.Sequences != 1 || !d.Leak || len(d.Figures) != 3 {
		b, _ := json.Marshal(d)
		t.Fatalf("leakage.json: %s", b)
	}
	want := map[string][3]int64{"all": {4, 1, 2}, "monomers": {3, 1, 1}, "multimers": {1, 0, 1}} // documents, exact, homologous
	for _, f := range d.Figures {
		if got := [3]int64{f.Documents, *f.ExactSequenceMatches, *f.Cluster40Homologous}; got != want[f.Subset] || *f.EvalEntriesCovered != 1 || *f.EvalEntriesCoveredFraction != 0.5 {
			t.Errorf("%s: documents, exact, homologous %v, covered %d (%v); want %v, 1 (0.5)", f.Subset, got, *f.EvalEntriesCovered, *f.EvalEntriesCoveredFraction, want[f.Subset])
		}
	}
	if err := runLeakage(ctx, []string{run, "--eval", evalCSV, "--eval-seqs", seqs}); err != nil {
		t.Errorf("rerun with the same figures: %v", err)
	}
	err := runLeakage(ctx, []string{run, "--eval", evalCSV})
	if err == nil || !strings.Contains(err.Error(), "exists with other figures") {
		t.Errorf("rerun with other figures: %v, want refused", err)
	}
	var ee *exitError
	err = runLeakage(ctx, []string{run, "--eval", evalCSV, "--eval-seqs", seqs, "--out", filepath.Join(dir, "l.json"), "--fail-on-leak"})
	if !errors.As(err, &ee) || ee.code != leakExit {
		t.Errorf("--fail-on-leak with an exact match: %v, want exit %d", err, leakExit)
	}
	// Without eval sequences and with 40% homologs only: not a leak.
	if err := runLeakage(ctx, []string{run, "--eval", evalCSV, "--out", filepath.Join(dir, "l2.json"), "--fail-on-leak"}); err != nil {
		t.Errorf("--fail-on-leak with homologs only: %v, want exit 0", err)
	}
	if d := readLeakJSON(t, filepath.Join(dir, "l2.json")); d.Leak || d.Figures[0].ExactSequenceMatches != nil || *d.Figures[0].Cluster40Homologous != 2 {
		t.Errorf("no sequences: %+v", d.Figures[0])
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{run}, "--eval"},
		{[]string{run, "--eval", seqs}, "no pdb_id column"},
		{[]string{run, "--eval", evalCSV, "--eval-seqs", evalCSV}, "want columns stem and input_seq"},
		{[]string{filepath.Join(dir, "nothing"), "--eval", evalCSV}, "no document shards match"},
		{[]string{filepath.Join(run, "part-*.parquet"), "--eval", evalCSV}, "name the output with --out"},
	} {
		if err := runLeakage(ctx, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("leakage %q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	bad := filepath.Join(dir, "bad")
	os.Mkdir(bad, 0o755)
	writeLeakShards(t, bad, leakCols[:3], nil, [][]any{{"1bbb_A", "d", "monomer"}})
	if err := runLeakage(ctx, []string{bad, "--eval", evalCSV}); err == nil || !strings.Contains(err.Error(), "part-00000-of-00002.parquet") {
		t.Errorf("shards without pdb_id: %v, want an error naming the file", err)
	}
}

// TestLeakageGoldenRun: the brief's pipeline over the golden PDB entries
// (manifest, scan, select --pdb excluding exp222's eval id 1aki, run with
// exp222's options; then dedup), audited against the golden eval set and
// against crafted ones, the eval sequences taken from the run itself
// (--eval-run). Expected figures: internal/leakage/testdata's Python over
// the golden files (see TestLeakGoldenPython), which the run reproduces.
func TestLeakageGoldenRun(t *testing.T) {
	c := testcorpus.Dir(t)
	g := filepath.Join(c, "golden", "pdb-curation")
	dir := t.TempDir()
	ctx := context.Background()
	for _, step := range [][]string{
		{"manifest", filepath.Join(c, "pdb", "*.cif*"), "--id", "pdb", "--out", filepath.Join(dir, "m.parquet")},
		{"scan", "--manifest", filepath.Join(dir, "m.parquet"), "--out", filepath.Join(dir, "entries.parquet")},
		{"select", "--pdb", "--input", filepath.Join(dir, "entries.parquet"), "--exclude-ids", filepath.Join(g, "eval_set_pdb_ids.csv"), "--out", filepath.Join(dir, "sel")},
		{"run", "--manifest", filepath.Join(dir, "sel", "manifest"), "--format", "contacts-v1", "--opt", "rotlib=" + filepath.Join(c, "golden", "confind-mini-rotlib"),
			"--opt", "units=chains,assembly1", "--opt", "curation=af3", "--opt", "max_chains=60",
			"--opt", "clusters=" + filepath.Join(g, "clusters-by-entity-40.txt"), "--out", filepath.Join(dir, "out"), "--workers", "2"},
		{"dedup", filepath.Join(dir, "out"), "--out", filepath.Join(dir, "deduped")},
	} {
		if err := commands[step[0]].run(ctx, step[1:]); err != nil {
			t.Fatalf("%s: %v", step[0], err)
		}
	}
	out := filepath.Join(dir, "out")
	type fig struct{ docs, present, exact, homologous, clustered, covered int64 }
	flat := func(f leakage.Figures) fig {
		return fig{f.Documents, int64(f.EvalPDBIDsPresent), *f.ExactSequenceMatches, *f.Cluster40Homologous, int64(*f.EvalEntriesClustered), int64(*f.EvalEntriesCovered)}
	}
	for i, tc := range []struct {
		ids  string
		src  string
		want []fig // all, monomers, multimers (the deduped folder: all)
	}{
		{"1aki", out, []fig{{71, 0, 0, 0, 1, 0}, {58, 0, 0, 0, 1, 0}, {13, 0, 0, 0, 1, 0}}},
		{"3ptb 4i6p", out, []fig{{71, 2, 4, 5, 2, 2}, {58, 2, 4, 4, 2, 2}, {13, 1, 0, 1, 2, 1}}},
		{"4hhb 1f2n", filepath.Join(dir, "deduped"), []fig{{56, 2, 3, 4, 2, 2}}},
	} {
		csv := filepath.Join(dir, "eval"+string(rune('0'+i))+".csv")
		os.WriteFile(csv, []byte("pdb_id\n"+strings.ReplaceAll(tc.ids, " ", "\n")+"\n"), 0o644)
		res := filepath.Join(dir, "leak"+string(rune('0'+i))+".json")
		args := []string{tc.src, "--eval", csv, "--eval-run", out, "--out", res, "--clusters", filepath.Join(g, "clusters-by-entity-40.txt")}
		if err := runLeakage(ctx, args); err != nil {
			t.Fatal(err)
		}
		d := readLeakJSON(t, res)
		for k, w := range tc.want {
			if got := flat(d.Figures[k]); got != w {
				t.Errorf("eval %s, %s %s: got %+v, want %+v", tc.ids, filepath.Base(tc.src), d.Figures[k].Subset, got, w)
			}
		}
	}
}
