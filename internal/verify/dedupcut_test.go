package verify_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/dedup"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/verify"
)

// cutRunCols are the columns of the synthetic run a cut is made from.
var cutRunCols = []format.Column{{Name: "entry_id", Type: format.String}, {Name: "document", Type: format.String},
	{Name: "sha1", Type: format.String}, {Name: "subset", Type: format.String}, {Name: "cluster_ids", Type: format.Int64List},
	{Name: "resolved_seq_sha1", Type: format.String}, {Name: "resolution", Type: format.Float64, Nullable: true},
	{Name: "seq_len", Type: format.Int64}, {Name: "num_tokens", Type: format.Int64}}

// writeCutRun writes a run of two document shards in dir, 20 rows: 14
// monomers in 5 clusters and 6 multimers in 2 compositions (and one
// unclustered peptide), and returns the shards' paths.
func writeCutRun(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	row := 0
	for s := 0; s < 2; s++ {
		w, err := corpus.NewWriter(corpus.Schema{Columns: cutRunCols})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 10; k++ {
			id, subset, clusters := fmt.Sprintf("%dab%c_A", row, 'a'+row%26), "monomer", []int64{int64(row % 5)}
			if row%10 >= 7 {
				subset, clusters = "multimer", []int64{int64(row % 2), 9}
			}
			if row == 3 {
				clusters = []int64{-1}
			}
			doc := fmt.Sprintf("<document of %s>", id)
			h := sha1.Sum([]byte(doc))
			if err := w.Append([]any{id, doc, hex.EncodeToString(h[:]), subset, clusters, fmt.Sprintf("seq%d", row), 1.0 + float64(row%4),
				int64(50 + row), int64(100 + row)}); err != nil {
				t.Fatal(err)
			}
			row++
		}
		data, err := w.Finish(corpus.Accounting{RunID: "run-x", Shard: s, Total: 2, RowsIn: 10, DocsOut: 10})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("part-%05d-of-00002.parquet", s))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// cutCase is a fresh copy of a good cut and its run, and what is needed to
// break them.
type cutCase struct {
	dir, run, cut string
	st            dedup.Stats
}

// newCut writes a run and cuts it (4 rows a shard).
func newCut(t *testing.T) *cutCase {
	t.Helper()
	dir := t.TempDir()
	c := &cutCase{dir: dir, run: filepath.Join(dir, "run"), cut: filepath.Join(dir, "cut")}
	if err := os.MkdirAll(c.run, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := dedup.Cut(context.Background(), localblob.Store{}, dedup.CutOptions{Inputs: writeCutRun(t, c.run), Out: c.cut,
		Subsets: []string{"monomer", "multimer"}, MaxPerCluster: 1, Seed: 222, RowsPerShard: 4, Prefix: "deduped"})
	if err != nil {
		t.Fatal(err)
	}
	c.st = *st
	return c
}

func verifyCut(t *testing.T, c *cutCase, deep bool) *verify.CutReport {
	t.Helper()
	rep, err := verify.VerifyCut(context.Background(), localblob.Store{}, verify.CutOptions{Out: c.cut, Deep: deep})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// rewrite reads the parquet file p whole, lets edit change its rows, and
// writes it back: with its corpus accounting when it has one.
func rewrite(t *testing.T, p string, edit func(cols []string, rows [][]any) [][]any) {
	t.Helper()
	ctx := context.Background()
	s, err := manifest.ReadSchema(ctx, localblob.Store{}, p)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		names[i] = c.Name
	}
	var rows [][]any
	if err := manifest.ReadFile(ctx, localblob.Store{}, p, nil, names, func(r *manifest.Rows) error {
		rows = append(rows, r.Values...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rows = edit(names, rows)
	var data []byte
	if m, err := corpus.ReadMeta(ctx, localblob.Store{}, p); err == nil {
		w, err := corpus.NewWriter(corpus.Schema{Columns: s.Columns})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		data, err = w.Finish(m.Accounting)
		if err != nil {
			t.Fatal(err)
		}
	} else if data, err = manifest.Encode(s.Columns, rows, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// col returns the index of name in cols.
func col(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	panic(name)
}

// findings is every finding of rep, one a line, as "KIND name (check): detail".
func findings(rep *verify.CutReport) string {
	var b strings.Builder
	for _, m := range rep.Missing {
		fmt.Fprintf(&b, "MISSING %s\n", m.Name)
	}
	for _, e := range rep.Extra {
		fmt.Fprintf(&b, "EXTRA %s (%s): %s\n", e.Name, e.Kind, e.Detail)
	}
	for _, d := range rep.Disagrees {
		fmt.Fprintf(&b, "DISAGREES %s (%s): %s\n", d.Name, d.Check, d.Detail)
	}
	return b.String()
}

// TestVerifyCut: a good cut (20 rows, 8 kept in 2 shards of 4) is whole,
// its counts recomputed; then each way of breaking it is found and named.
func TestVerifyCut(t *testing.T) {
	good := newCut(t)
	rep := verifyCut(t, good, true)
	if !rep.OK() {
		t.Fatalf("a good cut is not whole:\n%s", findings(rep))
	}
	st := good.st
	if len(st.Shards) < 2 || rep.Shards != len(st.Shards) || rep.Files != len(st.Shards) || rep.Cut.InputRows != 20 || rep.Cut.Kept != st.DocsOut ||
		rep.Cut.Dropped != st.DroppedDuplicates || rep.Cut.Matched != st.DocsOut || rep.Hashed != st.DocsOut || rep.Cut.Groups != st.Groups ||
		rep.Cut.Tokens != st.Tokens || rep.Filtered["duplicate"] != st.DroppedDuplicates {
		t.Fatalf("good cut: report %+v, stats %+v", rep.Cut, st)
	}
	shard1 := st.Shards[1]
	for _, tc := range []struct {
		name  string
		deep  bool
		brk   func(t *testing.T, c *cutCase)
		wants []string // each a substring of one finding line
	}{
		{"shard deleted", false, func(t *testing.T, c *cutCase) {
			os.Remove(filepath.Join(c.cut, shard1))
		}, []string{"MISSING " + shard1}},
		{"shard under a second name", false, func(t *testing.T, c *cutCase) {
			b, _ := os.ReadFile(filepath.Join(c.cut, shard1))
			os.WriteFile(filepath.Join(c.cut, "deduped-copy.parquet"), b, 0o644)
		}, []string{"EXTRA deduped-copy.parquet (second_output): a second output of shard 00001"}},
		{"temporary object", false, func(t *testing.T, c *cutCase) {
			os.WriteFile(filepath.Join(c.cut, shard1+".tmp"), []byte("PAR1"), 0o644)
		}, []string{"EXTRA " + shard1 + ".tmp (temporary)"}},
		{"document edited (deep)", true, func(t *testing.T, c *cutCase) {
			rewrite(t, filepath.Join(c.cut, shard1), func(cols []string, rows [][]any) [][]any {
				rows[2][col(cols, "document")] = "<edited>"
				return rows
			})
		}, []string{"DISAGREES " + shard1 + " (sha1): 1 documents differ from their sha1: row 2 (entry "}},
		{"document and its sha1 edited", false, func(t *testing.T, c *cutCase) {
			rewrite(t, filepath.Join(c.cut, shard1), func(cols []string, rows [][]any) [][]any {
				rows[2][col(cols, "sha1")] = "0000"
				return rows
			})
		}, []string{"DISAGREES " + shard1 + " (sha1): 1 rows differ from their input row's sha1 (the document is not the run's): row 2 (entry "}},
		{"input row that does not exist", false, func(t *testing.T, c *cutCase) {
			rewrite(t, filepath.Join(c.cut, dedup.RowsFile), func(cols []string, rows [][]any) [][]any {
				rows[5][col(cols, "input_row")] = int64(10)
				return rows
			})
		}, []string{"(input_row): 1 output rows map to rows this input does not have (it has 10 rows; rerun dedup on the run as it is now): rank 5 (entry "}},
		{"input shortened", false, func(t *testing.T, c *cutCase) {
			rewrite(t, c.st.Inputs[1], func(cols []string, rows [][]any) [][]any { return rows[:1] })
		}, []string{"(input_row): ", "output rows map to rows this input does not have (it has 1 rows", "DISAGREES dedup_stats.json (stats): says rows_in 20; its 2 inputs hold 11 rows"}},
		{"input deleted", false, func(t *testing.T, c *cutCase) {
			os.Remove(c.st.Inputs[0])
		}, []string{"part-00000-of-00002.parquet (input): an input of the cut cannot be read ("}},
		{"input row used twice", false, func(t *testing.T, c *cutCase) {
			rewrite(t, filepath.Join(c.cut, dedup.RowsFile), func(cols []string, rows [][]any) [][]any {
				for _, n := range []string{"input_file", "input_row", "entry_id"} {
					rows[6][col(cols, n)] = rows[1][col(cols, n)]
				}
				return rows
			})
		}, []string{"DISAGREES dedup_rows.parquet (input_row): 1 input rows are used by more than one output row (a cut keeps a row at most once): "}},
		{"rows file missing", false, func(t *testing.T, c *cutCase) {
			os.Remove(filepath.Join(c.cut, dedup.RowsFile))
		}, []string{"DISAGREES dedup_rows.parquet (rows_file): cannot be read"}},
		{"stats: docs_out edited", false, func(t *testing.T, c *cutCase) { editStats(t, c, "docs_out", st.DocsOut+1) },
			[]string{"(stats): says docs_out 9; dedup_rows.parquet has 8 rows", "(stats): says docs_out 9; its shards hold 8 rows", "(stats): does not balance"}},
		{"stats: dropped edited", false, func(t *testing.T, c *cutCase) { editStats(t, c, "dropped_duplicates", st.DroppedDuplicates-1) },
			[]string{fmt.Sprintf("(stats): says 8 kept + %d dropped as duplicates = %d; the inputs hold 20 rows", st.DroppedDuplicates-1, 7+st.DroppedDuplicates)}},
		{"stats: rows_in edited", false, func(t *testing.T, c *cutCase) { editStats(t, c, "rows_in", 21) },
			[]string{"(stats): says rows_in 21; its 2 inputs hold 20 rows"}},
		{"stats: groups edited", false, func(t *testing.T, c *cutCase) { editStats(t, c, "groups", st.Groups+1) },
			[]string{fmt.Sprintf("(stats): says groups %d; dedup_rows.parquet has %d distinct group keys", st.Groups+1, st.Groups)}},
		{"stats: docs_by_subset edited", false, func(t *testing.T, c *cutCase) {
			editStats(t, c, "docs_by_subset", map[string]int64{"monomer": st.DocsOut})
		}, []string{"(stats): says docs_by_subset map[monomer:8]; the kept rows' input rows are map[monomer:"}},
		{"stats: num_tokens edited", false, func(t *testing.T, c *cutCase) { editStats(t, c, "num_tokens", st.Tokens+1) },
			[]string{fmt.Sprintf("(stats): says num_tokens %d; the shards' num_tokens sum to %d", st.Tokens+1, st.Tokens)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCut(t)
			tc.brk(t, c)
			rep := verifyCut(t, c, tc.deep)
			got := findings(rep)
			t.Logf("findings:\n%s", got)
			if rep.OK() {
				t.Fatalf("a cut with %s is whole", tc.name)
			}
			for _, w := range tc.wants {
				if !strings.Contains(got, w) {
					t.Errorf("no finding contains %q; found:\n%s", w, got)
				}
			}
		})
	}
}

// editStats sets one field of the cut's dedup_stats.json.
func editStats(t *testing.T, c *cutCase, field string, v any) {
	t.Helper()
	p := filepath.Join(c.cut, dedup.StatsFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m[field] = v
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyCutNotACut: a folder without dedup_stats.json is not a cut.
func TestVerifyCutNotACut(t *testing.T) {
	dir := t.TempDir()
	if ok, err := verify.IsCut(context.Background(), localblob.Store{}, dir); ok || err != nil {
		t.Fatalf("IsCut of an empty folder: %v, %v", ok, err)
	}
	if _, err := verify.VerifyCut(context.Background(), localblob.Store{}, verify.CutOptions{Out: dir}); err == nil {
		t.Fatal("VerifyCut of a folder without dedup_stats.json: no error")
	}
}

// TestVerifyCutMonomers: a monomers-only cut is whole, the multimer rows
// counted as of another subset.
func TestVerifyCutMonomers(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &cutCase{dir: dir, run: run, cut: filepath.Join(dir, "cut")}
	st, err := dedup.Cut(context.Background(), localblob.Store{}, dedup.CutOptions{Inputs: writeCutRun(t, run), Out: c.cut,
		Subsets: []string{"monomer"}, MaxPerCluster: 2, Seed: 1, RowsPerShard: 5, Prefix: "deduped_monomers"})
	if err != nil {
		t.Fatal(err)
	}
	rep := verifyCut(t, c, false)
	if !rep.OK() || st.RowsOtherSubset != 6 || rep.Filtered["other_subset"] != 6 || rep.Cut.SubsetRows != 14 || rep.Cut.Kept != st.DocsOut ||
		rep.Cut.BySubset["multimer"] != 0 || rep.Files != len(st.Shards) {
		t.Fatalf("monomers cut: whole %v, report %+v, stats %+v\n%s", rep.OK(), rep.Cut, st, findings(rep))
	}
}
