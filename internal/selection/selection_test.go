package selection

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synthmanifest"
)

// mrow is one manifest row of a hand-written test manifest.
type mrow struct {
	entry, split, cluster string // cluster "" is null
	plddt                 float64
	seqLen                int64
}

// writeManifest writes rows as one parquet file with every column selection
// reads and an inline cif_content column, and returns its path.
func writeManifest(t *testing.T, dir, name string, rows []mrow) string {
	t.Helper()
	n := len(rows)
	entry, uri, split, seqCl, acc, org, cif := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	cl := make([]*string, n)
	tax, seqLen := make([]int64, n), make([]int64, n)
	plddt := make([]float64, n)
	for i, r := range rows {
		entry[i], split[i], plddt[i], seqLen[i] = r.entry, r.split, r.plddt, r.seqLen
		uri[i] = "gs://bucket/" + r.entry + ".cif"
		seqCl[i], acc[i], org[i], tax[i] = "S"+r.cluster, "P"+r.entry, "Homo sapiens", 9606
		cif[i] = "data_" + r.entry
		if r.cluster != "" {
			c := r.cluster
			cl[i] = &c
		}
	}
	path := filepath.Join(dir, name)
	err := synthmanifest.WriteTable(path, []synthmanifest.Column{
		{Name: "entry_id", Values: entry}, {Name: "gcs_uri", Values: uri}, {Name: "split", Values: split},
		{Name: "seq_cluster_id", Values: seqCl}, {Name: "struct_cluster_id", Values: cl},
		{Name: "uniprot_accession", Values: acc}, {Name: "tax_id", Values: tax},
		{Name: "organism_name", Values: org}, {Name: "global_plddt", Values: plddt},
		{Name: "seq_len", Values: seqLen}, {Name: "cif_content", Values: cif},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// orow is one output row as read back.
type orow struct {
	file  string // relative shard path
	entry string
	round int64
}

// readOutput reads every shard listed in the stats through the pipeline's own
// manifest reader (what `foldcorpus run` uses), checking the column types.
func readOutput(t *testing.T, out string, st *Stats) []orow {
	t.Helper()
	ctx := context.Background()
	var got []orow
	for _, sh := range st.Shards {
		uri := filepath.Join(out, filepath.FromSlash(sh.Path))
		s, err := manifest.ReadSchema(ctx, localblob.Store{}, uri)
		if err != nil {
			t.Fatal(err)
		}
		if s.NumRows != sh.Rows {
			t.Errorf("%s: %d rows, stats say %d", sh.Path, s.NumRows, sh.Rows)
		}
		var names []string
		for _, c := range s.Columns {
			names = append(names, c.Name)
		}
		if !slices.Equal(names, st.Columns) {
			t.Errorf("%s: columns %v, want %v", sh.Path, names, st.Columns)
		}
		err = manifest.ReadFile(ctx, localblob.Store{}, uri, nil, []string{"entry_id", "round", "split"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				e, ok1 := v[0].(string)
				rd, ok2 := v[1].(int64)
				if !ok1 || !ok2 {
					return fmt.Errorf("entry_id %T, round %T: want string and int64", v[0], v[1])
				}
				if v[2] != sh.Split {
					return fmt.Errorf("row %s has split %v in folder %s", e, v[2], sh.Split)
				}
				if rd != int64(sh.Round) {
					return fmt.Errorf("row %s has round %d in a round-%d shard", e, rd, sh.Round)
				}
				got = append(got, orow{sh.Path, e, rd})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return got
}

func run1(t *testing.T, rows []mrow, mod func(*Options)) (*Stats, []orow, error) {
	t.Helper()
	dir := t.TempDir()
	opts := DefaultOptions()
	opts.Inputs = []string{writeManifest(t, dir, "m.parquet", rows)}
	opts.OutDir = filepath.Join(dir, "out")
	opts.Threads = 1
	if mod != nil {
		mod(&opts)
	}
	st, err := Select(context.Background(), opts)
	if err != nil {
		return nil, nil, err
	}
	return st, readOutput(t, opts.OutDir, st), nil
}

// cluster returns n rows of one cluster with distinct pLDDTs, best first:
// entry ids <prefix>0 (highest pLDDT) ... <prefix>n-1.
func cluster(prefix, split string, n int) []mrow {
	var rs []mrow
	for i := range n {
		rs = append(rs, mrow{fmt.Sprintf("%s%d", prefix, i), split, prefix, 90 - float64(i), 100})
	}
	return rs
}

func TestSelectRules(t *testing.T) {
	type want struct {
		file, entry string
		round       int64
	}
	tests := []struct {
		name string
		rows []mrow
		mod  func(*Options)
		want []want
	}{{
		name: "seq_len bounds are inclusive; out-of-bounds rows do not count toward cluster size",
		rows: []mrow{
			{"a1", "train", "A", 90, 1}, {"a2", "train", "A", 80, 2}, {"a3", "train", "A", 70, 2000},
			{"a4", "train", "A", 60, 2001}, {"a5", "train", "A", 50, 500},
			// B has 3 members but only 2 usable: dropped.
			{"b1", "train", "B", 90, 1}, {"b2", "train", "B", 80, 10}, {"b3", "train", "B", 70, 10},
		},
		want: []want{{"train/shard_00000.parquet", "a5", 2}, {"train/shard_00001.parquet", "a3", 1}, {"train/shard_00002.parquet", "a2", 0}},
	}, {
		name: "null cluster rows are dropped",
		rows: append(cluster("C", "train", 3), mrow{"n1", "train", "", 99, 100}, mrow{"n2", "train", "", 98, 100}, mrow{"n3", "train", "", 97, 100}),
		want: []want{{"train/shard_00000.parquet", "C2", 2}, {"train/shard_00001.parquet", "C1", 1}, {"train/shard_00002.parquet", "C0", 0}},
	}, {
		name: "clusters below min cluster size are dropped",
		rows: append(cluster("D", "train", 2), cluster("E", "train", 3)...),
		want: []want{{"train/shard_00000.parquet", "E2", 2}, {"train/shard_00001.parquet", "E1", 1}, {"train/shard_00002.parquet", "E0", 0}},
	}, {
		name: "min cluster size flag",
		rows: append(cluster("D", "train", 2), cluster("E", "train", 1)...),
		mod:  func(o *Options) { o.MinClusterSize = 2 },
		want: []want{{"train/shard_00000.parquet", "D1", 1}, {"train/shard_00001.parquet", "D0", 0}},
	}, {
		name: "pLDDT ties broken by entry_id ascending",
		rows: []mrow{{"t3", "train", "T", 80, 50}, {"t1", "train", "T", 80, 50}, {"t2", "train", "T", 80, 50}, {"t0", "train", "T", 70, 50}},
		want: []want{{"train/shard_00000.parquet", "t0", 3}, {"train/shard_00001.parquet", "t3", 2}, {"train/shard_00002.parquet", "t2", 1}, {"train/shard_00003.parquet", "t1", 0}},
	}, {
		name: "rounds capped at num rounds",
		rows: cluster("R", "train", 7),
		mod:  func(o *Options) { o.NumRounds = 2 },
		want: []want{{"train/shard_00000.parquet", "R1", 1}, {"train/shard_00001.parquet", "R0", 0}},
	}, {
		name: "default num rounds is 5",
		rows: cluster("R", "train", 7),
		want: []want{{"train/shard_00000.parquet", "R4", 4}, {"train/shard_00001.parquet", "R3", 3}, {"train/shard_00002.parquet", "R2", 2}, {"train/shard_00003.parquet", "R1", 1}, {"train/shard_00004.parquet", "R0", 0}},
	}, {
		name: "shards: rounds descending, rows by cluster id, no shard mixes rounds",
		rows: append(append(cluster("Z", "train", 4), cluster("X", "train", 3)...), cluster("Y", "train", 3)...),
		mod:  func(o *Options) { o.ShardSize = 2 },
		want: []want{
			{"train/shard_00000.parquet", "Z3", 3},
			{"train/shard_00001.parquet", "X2", 2}, {"train/shard_00001.parquet", "Y2", 2}, {"train/shard_00002.parquet", "Z2", 2},
			{"train/shard_00003.parquet", "X1", 1}, {"train/shard_00003.parquet", "Y1", 1}, {"train/shard_00004.parquet", "Z1", 1},
			{"train/shard_00005.parquet", "X0", 0}, {"train/shard_00005.parquet", "Y0", 0}, {"train/shard_00006.parquet", "Z0", 0},
		},
	}, {
		name: "splits separate, alphabetical, shard index restarts per split",
		rows: append(append(cluster("V", "val", 3), cluster("A", "train", 3)...), cluster("T", "test", 3)...),
		mod:  func(o *Options) { o.NumRounds = 2 },
		want: []want{
			{"test/shard_00000.parquet", "T1", 1}, {"test/shard_00001.parquet", "T0", 0},
			{"train/shard_00000.parquet", "A1", 1}, {"train/shard_00001.parquet", "A0", 0},
			{"val/shard_00000.parquet", "V1", 1}, {"val/shard_00001.parquet", "V0", 0},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := run1(t, tt.rows, tt.mod)
			if err != nil {
				t.Fatal(err)
			}
			var w []orow
			for _, x := range tt.want {
				w = append(w, orow(x))
			}
			if !slices.Equal(got, w) {
				t.Errorf("Select = %v\nwant %v", got, w)
			}
		})
	}
}

func TestSelectStats(t *testing.T) {
	rows := append(append(cluster("A", "train", 7), cluster("B", "train", 2)...), cluster("C", "val", 3)...)
	rows = append(rows, mrow{"n", "train", "", 50, 10}, mrow{"long", "train", "A", 99, 5000})
	st, _, err := run1(t, rows, func(o *Options) { o.ShardSize = 2 })
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"entry_id", "gcs_uri", "split", "seq_cluster_id", "struct_cluster_id", "uniprot_accession",
		"tax_id", "organism_name", "global_plddt", "seq_len", "round"} // never cif_content
	if !slices.Equal(st.Columns, wantCols) {
		t.Errorf("output columns %v, want %v", st.Columns, wantCols)
	}
	type counts struct{ in, usable, clUsable, kept, dropped, selected int64 }
	got := counts{st.RowsIn, st.RowsUsable, st.ClustersUsable, st.ClustersKept, st.ClustersDropped, st.RowsSelected}
	if w := (counts{14, 12, 3, 2, 1, 8}); got != w {
		t.Errorf("counts = %+v, want %+v", got, w)
	}
	if len(st.Splits) != 2 || st.Splits[0].Split != "train" || st.Splits[0].Rows != 5 || st.Splits[1].Rows != 3 {
		t.Fatalf("splits = %+v", st.Splits)
	}
	var rounds []int
	for _, r := range st.Splits[0].Rounds {
		rounds = append(rounds, r.Round)
	}
	if !slices.Equal(rounds, []int{4, 3, 2, 1, 0}) {
		t.Errorf("train rounds = %v, want 4..0", rounds)
	}
}

// reference is a direct Go transcription of the rules, for comparison on a
// larger synthetic manifest.
func reference(rows []mrow, o Options) []orow {
	byCluster := map[string][]mrow{}
	for _, r := range rows {
		if r.cluster != "" && r.seqLen >= int64(o.MinSeqLen) && r.seqLen <= int64(o.MaxSeqLen) {
			byCluster[r.cluster] = append(byCluster[r.cluster], r)
		}
	}
	type sel struct {
		r     mrow
		round int
	}
	var all []sel
	for _, ms := range byCluster {
		if len(ms) < o.MinClusterSize {
			continue
		}
		slices.SortFunc(ms, func(a, b mrow) int { return cmp.Or(cmp.Compare(b.plddt, a.plddt), strings.Compare(a.entry, b.entry)) })
		for i := 0; i < len(ms) && i < o.NumRounds; i++ {
			all = append(all, sel{ms[i], i})
		}
	}
	slices.SortFunc(all, func(a, b sel) int {
		return cmp.Or(strings.Compare(a.r.split, b.r.split), cmp.Compare(b.round, a.round),
			strings.Compare(a.r.cluster, b.r.cluster), strings.Compare(a.r.entry, b.r.entry))
	})
	var out []orow
	idx, inShard := -1, 0
	for i, s := range all {
		if i == 0 || s.r.split != all[i-1].r.split {
			idx, inShard = 0, 0
		} else if s.round != all[i-1].round || inShard == o.ShardSize {
			idx, inShard = idx+1, 0
		}
		inShard++
		out = append(out, orow{fmt.Sprintf("%s/shard_%05d.parquet", s.r.split, idx), s.r.entry, int64(s.round)})
	}
	return out
}

// synthRows generates a synthetic manifest and reads it back as mrows.
func synthRows(t *testing.T, dir string, n int) ([]string, []mrow) {
	t.Helper()
	paths, err := synthmanifest.Generate(context.Background(), dir, synthmanifest.Config{Rows: n, Files: 3, Seed: 7, CifBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	var rows []mrow
	cols := []string{"entry_id", "split", "struct_cluster_id", "global_plddt", "seq_len"}
	for _, p := range paths {
		err := manifest.ReadFile(context.Background(), localblob.Store{}, p, nil, cols, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				c, _ := v[2].(string)
				rows = append(rows, mrow{v[0].(string), v[1].(string), c, v[3].(float64), v[4].(int64)})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return paths, rows
}

func TestSelectMatchesReferenceOnSyntheticManifest(t *testing.T) {
	dir := t.TempDir()
	paths, rows := synthRows(t, filepath.Join(dir, "in"), 20_000)
	for _, mod := range []func(*Options){
		func(*Options) {},
		func(o *Options) { o.ShardSize, o.NumRounds, o.MinClusterSize, o.MaxSeqLen = 97, 3, 5, 400 },
	} {
		opts := DefaultOptions()
		mod(&opts)
		opts.Inputs, opts.OutDir, opts.Threads = paths, filepath.Join(dir, fmt.Sprint("out", opts.ShardSize)), 2
		st, err := Select(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		got, want := readOutput(t, opts.OutDir, st), reference(rows, opts)
		if len(want) < 1000 {
			t.Fatalf("reference selects only %d rows: the synthetic manifest does not exercise much", len(want))
		}
		if !slices.Equal(got, want) {
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Fatalf("options %+v: row %d = %v, want %v (%d vs %d rows)", opts, i, got[i], want[i], len(got), len(want))
				}
			}
			t.Fatalf("options %+v: %d rows, want %d", opts, len(got), len(want))
		}
	}
}

func TestSelectDeterministic(t *testing.T) {
	dir := t.TempDir()
	paths, err := synthmanifest.Generate(context.Background(), filepath.Join(dir, "in"), synthmanifest.Config{Rows: 30_000, Files: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for i, threads := range []int{1, 2, 2} {
		opts := DefaultOptions()
		opts.Inputs, opts.OutDir, opts.Threads, opts.ShardSize = paths, filepath.Join(dir, fmt.Sprint("out", i)), threads, 500
		if _, err := Select(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, opts.OutDir)
	}
	files, _ := filepath.Glob(filepath.Join(outs[0], "*", "shard_*.parquet"))
	if len(files) < 5 {
		t.Fatalf("only %d shards written", len(files))
	}
	for _, other := range outs[1:] {
		got, _ := filepath.Glob(filepath.Join(other, "*", "shard_*.parquet"))
		if len(got) != len(files) {
			t.Fatalf("%s has %d shards, %s has %d", other, len(got), outs[0], len(files))
		}
		for _, f := range files {
			rel, _ := filepath.Rel(outs[0], f)
			a, _ := os.ReadFile(f)
			b, err := os.ReadFile(filepath.Join(other, rel))
			if err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s differs between runs (%v)", rel, err)
			}
		}
	}
}

func TestSelectBadInput(t *testing.T) {
	good := cluster("A", "train", 3)
	writeCols := func(t *testing.T, path string, drop string, replace *synthmanifest.Column) {
		t.Helper()
		cols := []synthmanifest.Column{
			{Name: "entry_id", Values: []string{"a", "b"}}, {Name: "gcs_uri", Values: []string{"u", "v"}},
			{Name: "split", Values: []string{"train", "train"}}, {Name: "struct_cluster_id", Values: []string{"C", "C"}},
			{Name: "global_plddt", Values: []float64{1, 2}}, {Name: "seq_len", Values: []int64{10, 10}},
		}
		var out []synthmanifest.Column
		for _, c := range cols {
			switch {
			case c.Name == drop:
			case replace != nil && c.Name == replace.Name:
				out = append(out, *replace)
			default:
				out = append(out, c)
			}
		}
		if err := synthmanifest.WriteTable(path, out, 0); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) []string
		wantErr []string // substrings of the error
		want    error
	}{{
		name: "missing required column",
		setup: func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, "nosplit.parquet")
			writeCols(t, p, "split", nil)
			return []string{p}
		},
		wantErr: []string{"nosplit.parquet", "missing required column split"},
		want:    derrors.ErrPermanent,
	}, {
		name: "pLDDT is a string",
		setup: func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, "strplddt.parquet")
			writeCols(t, p, "", &synthmanifest.Column{Name: "global_plddt", Values: []string{"90", "80"}})
			return []string{p}
		},
		wantErr: []string{"strplddt.parquet", "global_plddt has type VARCHAR, want a number"},
		want:    derrors.ErrPermanent,
	}, {
		name: "seq_len is a double",
		setup: func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, "dlen.parquet")
			writeCols(t, p, "", &synthmanifest.Column{Name: "seq_len", Values: []float64{1, 2}})
			return []string{p}
		},
		wantErr: []string{"dlen.parquet", "seq_len has type DOUBLE, want an integer"},
		want:    derrors.ErrPermanent,
	}, {
		name: "files disagree on a type",
		setup: func(t *testing.T, dir string) []string {
			a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
			writeCols(t, a, "", nil)
			writeCols(t, b, "", &synthmanifest.Column{Name: "struct_cluster_id", Values: []int64{1, 2}})
			return []string{a, b}
		},
		wantErr: []string{"b.parquet", "struct_cluster_id has type BIGINT here but VARCHAR in"},
		want:    derrors.ErrPermanent,
	}, {
		name: "empty manifest",
		setup: func(t *testing.T, dir string) []string {
			return []string{writeManifest(t, dir, "empty.parquet", nil)}
		},
		wantErr: []string{"empty.parquet", "has no rows"},
		want:    derrors.ErrPermanent,
	}, {
		name: "not parquet",
		setup: func(t *testing.T, dir string) []string {
			p := filepath.Join(dir, "junk.parquet")
			os.WriteFile(p, []byte("not parquet at all"), 0o644)
			return []string{p}
		},
		wantErr: []string{"junk.parquet"},
		want:    derrors.ErrPermanent,
	}, {
		name: "duplicate entry_id",
		setup: func(t *testing.T, dir string) []string {
			return []string{writeManifest(t, dir, "dup.parquet", append(good, mrow{"A0", "train", "B", 1, 10}, mrow{"B1", "train", "B", 2, 10}, mrow{"B2", "train", "B", 3, 10}))}
		},
		wantErr: []string{`entry_id "A0": `, "dup.parquet row 0 and ", "dup.parquet row 3", "--allow-duplicate-ids"},
		want:    ErrDuplicateID,
	}, {
		name: "duplicate entry_id across files and splits, not selected",
		setup: func(t *testing.T, dir string) []string {
			return []string{writeManifest(t, dir, "a.parquet", good),
				writeManifest(t, dir, "b.parquet", []mrow{{"X", "val", "Z", 1, 10}, {"A2", "val", "", 5, 10}})}
		},
		wantErr: []string{`1 entry_id(s)`, `entry_id "A2": `, "a.parquet row 2 and ", "b.parquet row 1"},
		want:    derrors.ErrPermanent,
	}, {
		name: "split unfit for a folder name",
		setup: func(t *testing.T, dir string) []string {
			return []string{writeManifest(t, dir, "split.parquet", cluster("A", "../evil", 3))}
		},
		wantErr: []string{`split "../evil" cannot name an output folder`},
		want:    derrors.ErrPermanent,
	}, {
		name: "remote input",
		setup: func(t *testing.T, dir string) []string {
			return []string{"gs://bucket/manifest.parquet"}
		},
		wantErr: []string{"only local files"},
		want:    derrors.ErrPermanent,
	}, {
		name: "output folder not empty",
		setup: func(t *testing.T, dir string) []string {
			os.MkdirAll(filepath.Join(dir, "out"), 0o755)
			os.WriteFile(filepath.Join(dir, "out", "x"), nil, 0o644)
			return []string{writeManifest(t, dir, "m.parquet", good)}
		},
		wantErr: []string{"not empty"},
		want:    derrors.ErrExists,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := DefaultOptions()
			opts.Inputs, opts.OutDir = tt.setup(t, dir), filepath.Join(dir, "out")
			_, err := Select(context.Background(), opts)
			if err == nil {
				t.Fatal("Select succeeded, want an error")
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v is not %v", err, tt.want)
			}
			if tt.want != derrors.ErrExists {
				if _, statErr := os.Stat(opts.OutDir); statErr == nil {
					t.Errorf("output folder %s exists after a failed run", opts.OutDir)
				}
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".out.tmp-*"))
			if len(left) > 0 {
				t.Errorf("staging folders left behind: %v", left)
			}
		})
	}
}

// TestPlanFastAgreesWithEach checks that the two-query schema check accepts
// good manifests with the same result as the file-by-file one, and refuses
// (leaving the error to the file-by-file check) when files disagree.
func TestPlanFastAgreesWithEach(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	paths, err := synthmanifest.Generate(ctx, dir, synthmanifest.Config{Rows: 300, Files: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	db, err := openDB(ctx, Options{Threads: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fc, fcast, ok := planFast(ctx, db, paths)
	if !ok {
		t.Fatal("planFast refused a good manifest")
	}
	ec, ecast, err := planEach(ctx, db, paths)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fc, ec) || fmt.Sprint(fcast) != fmt.Sprint(ecast) {
		t.Errorf("planFast = %v %v, planEach = %v %v", fc, fcast, ec, ecast)
	}
	odd := filepath.Join(dir, "odd.parquet")
	if err := synthmanifest.WriteTable(odd, []synthmanifest.Column{
		{Name: "entry_id", Values: []string{"x"}}, {Name: "gcs_uri", Values: []string{"u"}},
		{Name: "split", Values: []string{"train"}}, {Name: "struct_cluster_id", Values: []string{"C"}},
		{Name: "global_plddt", Values: []float32{1}}, {Name: "seq_len", Values: []int32{10}},
	}, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := planFast(ctx, db, append(paths, odd)); ok {
		t.Error("planFast accepted files with different columns and types")
	}
}
