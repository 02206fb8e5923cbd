package dedup

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// goldenRun writes the golden document rows of one pdb-curation file as a
// run's corpus shards in dir, and returns the shard paths. exp222 read the
// monomer shard, then the multimer shard; here the multimer rows come
// first in the first file and the monomer rows are split over both files,
// so that only the subset partition can restore exp222's order.
func goldenRun(t *testing.T, jsonl, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(testcorpus.Dir(t), "golden", "pdb-curation", jsonl))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type doc struct {
		shard string
		row   int64
		vals  map[string]json.RawMessage
	}
	var docs []doc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var line struct {
			Documents []map[string]json.RawMessage `json:"documents"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		for _, d := range line.Documents {
			var dd doc
			json.Unmarshal(d["shard"], &dd.shard)
			json.Unmarshal(d["shard_row"], &dd.row)
			delete(d, "shard")
			delete(d, "shard_row")
			dd.vals = d
			docs = append(docs, dd)
		}
	}
	sort.Slice(docs, func(i, j int) bool {
		if docs[i].shard != docs[j].shard {
			return docs[i].shard < docs[j].shard
		}
		return docs[i].row < docs[j].row
	})
	// column types from the JSON literals
	var names []string
	for n := range docs[0].vals {
		names = append(names, n)
	}
	slices.Sort(names)
	cols := make([]format.Column, len(names))
	for i, n := range names {
		cols[i] = format.Column{Name: n, Type: format.Int64, Nullable: true}
		for _, d := range docs {
			raw := bytes.TrimSpace(d.vals[n])
			switch {
			case raw[0] == '"':
				cols[i].Type = format.String
			case raw[0] == 't' || raw[0] == 'f':
				cols[i].Type = format.Bool
			case raw[0] == '[' && bytes.Contains(raw, []byte(`"`)):
				cols[i].Type = format.StringList
			case raw[0] == '[' && len(raw) > 2:
				cols[i].Type = format.Int64List
			case raw[0] != 'n' && raw[0] != '[' && bytes.ContainsAny(raw, ".eE"):
				cols[i].Type = format.Float64
			default:
				continue
			}
			break
		}
	}
	value := func(c format.Column, raw json.RawMessage) any {
		if string(raw) == "null" {
			return nil
		}
		var v any
		switch c.Type {
		case format.String:
			v = new(string)
		case format.Bool:
			v = new(bool)
		case format.Int64:
			v = new(int64)
		case format.Float64:
			v = new(float64)
		case format.Int64List:
			v = &[]int64{}
		case format.StringList:
			v = &[]string{}
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("column %s: %v", c.Name, err)
		}
		switch x := v.(type) {
		case *string:
			return *x
		case *bool:
			return *x
		case *int64:
			return *x
		case *float64:
			return *x
		case *[]int64:
			return *x
		case *[]string:
			return *x
		}
		return nil
	}
	var mono, multi [][]any
	for _, d := range docs {
		row := make([]any, len(cols))
		for i, c := range cols {
			row[i] = value(c, d.vals[c.Name])
		}
		if strings.Contains(d.shard, "multimer") {
			multi = append(multi, row)
		} else {
			mono = append(mono, row)
		}
	}
	half := len(mono) / 2
	files := [][][]any{append(append([][]any{}, multi...), mono[:half]...), mono[half:]}
	var paths []string
	for i, rows := range files {
		w, err := corpus.NewWriter(corpus.Schema{Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		data, err := w.Finish(corpus.Accounting{RowsIn: int64(len(rows)), DocsOut: int64(len(rows))})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("part-%05d-of-00002.parquet", i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// goldenCut is one deduped.jsonl row.
type goldenCut struct {
	Cut             string          `json:"cut"`
	Rank            int             `json:"rank"`
	EntryID         string          `json:"entry_id"`
	Subset          string          `json:"subset"`
	SHA1            string          `json:"sha1"`
	NumTokens       int64           `json:"num_tokens"`
	SeqLen          int64           `json:"seq_len"`
	Resolution      *float64        `json:"resolution"`
	ClusterIDs      []int64         `json:"cluster_ids"`
	ResolvedSeqSHA1 string          `json:"resolved_seq_sha1"`
	GroupKey        json.RawMessage `json:"group_key"`
}

// key is the golden group_key in Key's form.
func (g goldenCut) key(t *testing.T) string {
	var k []json.RawMessage
	json.Unmarshal(g.GroupKey, &k)
	var kind string
	json.Unmarshal(k[0], &kind)
	if kind == "cluster" {
		var ids []int64
		json.Unmarshal(k[1], &ids)
		return Key(ids, "")
	}
	var n int
	var sha string
	json.Unmarshal(k[1], &n)
	json.Unmarshal(k[2], &sha)
	return fmt.Sprintf("seq:%d:%s", n, sha)
}

func readCuts(t *testing.T, path string) map[string][]goldenCut {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cuts := map[string][]goldenCut{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var g goldenCut
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		cuts[g.Cut] = append(cuts[g.Cut], g)
	}
	return cuts
}

// TestCutMatchesExp222: both cuts of the 43 entries and of the 15 edge
// cases, row for row and in order, every compared column equal to
// deduped.jsonl (group keys included), and the accounting balanced.
func TestCutMatchesExp222(t *testing.T) {
	golden := filepath.Join(testcorpus.Dir(t), "golden", "pdb-curation")
	for _, set := range []struct{ jsonl, cuts string }{
		{"pdb-curation.jsonl", "deduped.jsonl"},
		{"edge/pdb-curation-edge.jsonl", "edge/deduped-edge.jsonl"},
	} {
		dir := t.TempDir()
		inputs := goldenRun(t, set.jsonl, dir)
		cuts := readCuts(t, filepath.Join(golden, set.cuts))
		for _, c := range []struct {
			name    string
			subsets []string
		}{{"deduped", []string{"monomer", "multimer"}}, {"deduped_monomers", []string{"monomer"}}} {
			want := cuts[c.name]
			out := filepath.Join(dir, c.name)
			st, err := Cut(context.Background(), localblob.Store{}, CutOptions{Inputs: inputs, Out: out, Subsets: c.subsets,
				MaxPerCluster: 1, Seed: 222, RowsPerShard: 20, Prefix: c.name})
			if err != nil {
				t.Fatal(err)
			}
			if st.RowsIn != st.RowsOtherSubset+st.DocsOut+st.DroppedDuplicates {
				t.Errorf("%s %s: accounting %+v does not balance", set.jsonl, c.name, st)
			}
			var got []goldenCut
			for _, sh := range st.Shards {
				err := corpus.Read(context.Background(), localblob.Store{}, filepath.Join(out, sh),
					[]string{"entry_id", "subset", "sha1", "num_tokens", "seq_len", "resolution", "cluster_ids", "resolved_seq_sha1"}, func(r *manifest.Rows) error {
						for _, v := range r.Values {
							g := goldenCut{Cut: c.name, Rank: len(got), EntryID: v[0].(string), Subset: v[1].(string), SHA1: v[2].(string),
								NumTokens: v[3].(int64), SeqLen: v[4].(int64), ClusterIDs: v[6].([]int64), ResolvedSeqSHA1: v[7].(string)}
							if v[5] != nil {
								x := v[5].(float64)
								g.Resolution = &x
							}
							got = append(got, g)
						}
						return nil
					})
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%s %s: %d rows, want %d", set.jsonl, c.name, len(got), len(want))
			}
			var keys []string
			manifest.ReadFile(context.Background(), localblob.Store{}, filepath.Join(out, RowsFile), nil, []string{"group_key"}, func(r *manifest.Rows) error {
				for _, v := range r.Values {
					keys = append(keys, v[0].(string))
				}
				return nil
			})
			for i := range want {
				w, g := want[i], got[i]
				gk := ""
				if i < len(keys) {
					gk = keys[i]
				}
				if wk := w.key(t); gk != wk {
					t.Errorf("%s %s row %d: group %s, want %s", set.jsonl, c.name, i, gk, wk)
				}
				w.GroupKey = nil
				wj, _ := json.Marshal(w)
				gj, _ := json.Marshal(g)
				if !bytes.Equal(wj, gj) {
					t.Errorf("%s %s row %d:\n got %s\nwant %s", set.jsonl, c.name, i, gj, wj)
				}
			}
			t.Logf("%s %s: %d rows in, %d groups, %d out, %d dropped as duplicates", set.jsonl, c.name, st.RowsIn, st.Groups, st.DocsOut, st.DroppedDuplicates)
		}
	}
}

// TestMaxPerCluster: with N = 1, 2, 3 every group keeps its best
// min(N, size) members by build_deduped's rank, and the monomers-only cut
// holds exactly the monomer rows of the mixed cut.
func TestMaxPerCluster(t *testing.T) {
	dir := t.TempDir()
	inputs := goldenRun(t, "pdb-curation.jsonl", dir)
	rows, err := readKeys(context.Background(), localblob.Store{}, inputs)
	if err != nil {
		t.Fatal(err)
	}
	var ordered, monomers []Row
	for _, sub := range []string{"monomer", "multimer"} {
		for _, r := range rows {
			if r.Subset == sub {
				ordered = append(ordered, r)
				if sub == "monomer" {
					monomers = append(monomers, r)
				}
			}
		}
	}
	for n := 1; n <= 3; n++ {
		mixed, err := Choose(ordered, Options{MaxPerCluster: n, Seed: 222})
		if err != nil {
			t.Fatal(err)
		}
		members := map[string][]Row{}
		for i, r := range ordered {
			members[mixed.Keys[i]] = append(members[mixed.Keys[i]], r)
		}
		kept := map[string][]string{}
		for _, i := range mixed.Chosen {
			kept[mixed.Keys[i]] = append(kept[mixed.Keys[i]], ordered[i].EntryID)
		}
		for k, ms := range members {
			slices.SortFunc(ms, compareRank)
			var want []string
			for _, m := range ms[:min(n, len(ms))] {
				want = append(want, m.EntryID)
			}
			got := kept[k]
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("N=%d group %s: kept %v, want %v", n, k, got, want)
			}
		}
		mono, err := Choose(monomers, Options{MaxPerCluster: n, Seed: 222})
		if err != nil {
			t.Fatal(err)
		}
		var a, b []string
		for _, i := range mixed.Chosen {
			if ordered[i].Subset == "monomer" {
				a = append(a, ordered[i].EntryID)
			}
		}
		for _, i := range mono.Chosen {
			b = append(b, monomers[i].EntryID)
		}
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Errorf("N=%d: monomers-only cut %v, mixed cut's monomers %v", n, b, a)
		}
		t.Logf("N=%d: %d of %d rows kept (%d groups)", n, len(mixed.Chosen), len(ordered), mixed.Groups)
	}
}
