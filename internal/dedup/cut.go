package dedup

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// Output names under the output folder.
const (
	StatsFile = "dedup_stats.json"
	RowsFile  = "dedup_rows.parquet"
)

// keyColumns are the columns grouping and ranking read.
var keyColumns = [...]string{"entry_id", "subset", "cluster_ids", "resolved_seq_sha1", "resolution", "seq_len"}

// CutOptions configure Cut.
type CutOptions struct {
	Inputs        []string // corpus shard files, read in this order
	Out           string   // output folder (path, file:// or gs:// prefix)
	Subsets       []string // subsets drawn from, in reading order ("monomer", "multimer")
	MaxPerCluster int
	Seed          uint64
	RowsPerShard  int
	Prefix        string // output shard name prefix
}

// Stats is dedup_stats.json: the cut's accounting. RowsIn = RowsOtherSubset
// + DocsOut + DroppedDuplicates.
type Stats struct {
	Inputs            []string         `json:"inputs"`
	Subsets           []string         `json:"subsets"`
	MaxPerCluster     int              `json:"max_per_cluster"`
	Seed              uint64           `json:"seed"`
	RowsIn            int64            `json:"rows_in"`
	RowsOtherSubset   int64            `json:"rows_other_subset"`
	Groups            int              `json:"groups"`
	DocsOut           int64            `json:"docs_out"`
	DroppedDuplicates int64            `json:"dropped_duplicates"`
	DocsBySubset      map[string]int64 `json:"docs_by_subset"`
	Tokens            int64            `json:"num_tokens,omitempty"`
	Shards            []string         `json:"shards"`
	RowsPerShard      int              `json:"rows_per_shard"` // rows of each shard but the last (output row k is in shard k/RowsPerShard)
	RowsFile          string           `json:"rows_file"`      // per output row: its input file and row, and its group
}

// Cut reads the document rows of opts.Inputs, chooses the representatives
// (Choose) among the rows of opts.Subsets (monomer rows first, then
// multimer rows, each in input order), and writes them, every input column
// kept, in the shuffled order as corpus shards PREFIX-NNNNN-of-NNNNN.parquet
// under opts.Out, with dedup_rows.parquet and dedup_stats.json. Writes are
// create-only: a rerun into the same folder fails with ErrExists. Inputs
// that disagree on their columns, a row whose subset is neither monomer
// nor multimer, and a null entry_id are errors naming the file and row.
func Cut(ctx context.Context, store blob.Store, opts CutOptions) (_ *Stats, err error) {
	defer derrors.Wrap(&err, "dedup.Cut(%s)", opts.Out)
	if len(opts.Inputs) == 0 || opts.RowsPerShard < 1 {
		return nil, derrors.Permanent(fmt.Errorf("need input files and rows per shard >= 1"))
	}
	var cols []format.Column
	for _, f := range opts.Inputs {
		s, err := manifest.ReadSchema(ctx, store, f)
		if err != nil {
			return nil, err
		}
		if cols == nil {
			cols = s.Columns
		} else if !slices.Equal(cols, s.Columns) {
			return nil, derrors.Permanent(fmt.Errorf("%s: columns differ from %s's", f, opts.Inputs[0]))
		}
	}
	rows, err := readKeys(ctx, store, opts.Inputs)
	if err != nil {
		return nil, err
	}
	st := &Stats{Inputs: opts.Inputs, Subsets: opts.Subsets, MaxPerCluster: opts.MaxPerCluster, Seed: opts.Seed,
		RowsPerShard: opts.RowsPerShard, RowsIn: int64(len(rows)), DocsBySubset: map[string]int64{}, RowsFile: RowsFile}
	var ordered []Row
	for _, sub := range []string{"monomer", "multimer"} {
		for _, r := range rows {
			if r.Subset == sub && slices.Contains(opts.Subsets, sub) {
				ordered = append(ordered, r)
			}
		}
	}
	st.RowsOtherSubset = st.RowsIn - int64(len(ordered))
	res, err := Choose(ordered, Options{MaxPerCluster: opts.MaxPerCluster, Seed: opts.Seed})
	if err != nil {
		return nil, err
	}
	st.Groups, st.DocsOut = res.Groups, int64(len(res.Chosen))
	st.DroppedDuplicates = int64(len(ordered)) - st.DocsOut
	out, err := materialize(ctx, store, opts.Inputs, cols, ordered, res.Chosen)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(opts.Out, "/") + "/"
	if err := writeShards(ctx, store, base, opts, cols, out, st); err != nil {
		return nil, err
	}
	rrows := make([][]any, len(res.Chosen))
	for k, i := range res.Chosen {
		r := ordered[i]
		st.DocsBySubset[r.Subset]++
		rrows[k] = []any{int64(k), r.EntryID, r.Subset, r.File, r.Index, res.Keys[i]}
	}
	rdata, err := manifest.Encode([]format.Column{{Name: "rank", Type: format.Int64}, {Name: "entry_id", Type: format.String},
		{Name: "subset", Type: format.String}, {Name: "input_file", Type: format.String}, {Name: "input_row", Type: format.Int64},
		{Name: "group_key", Type: format.String}}, rrows, 0)
	if err != nil {
		return nil, err
	}
	if err := store.Create(ctx, base+RowsFile, rdata); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	return st, store.Create(ctx, base+StatsFile, append(b, '\n'))
}

// readKeys reads the key columns of every input row, in file and row order.
func readKeys(ctx context.Context, store blob.Store, files []string) ([]Row, error) {
	var rows []Row
	for _, f := range files {
		err := manifest.ReadFile(ctx, store, f, nil, keyColumns[:], func(r *manifest.Rows) error {
			for i, v := range r.Values {
				at := r.First + int64(i)
				row := Row{File: f, Index: at}
				var ok bool
				if row.EntryID, ok = v[0].(string); !ok {
					return derrors.Permanent(fmt.Errorf("%s row %d: entry_id is %v", f, at, v[0]))
				}
				if row.Subset, ok = v[1].(string); !ok || (row.Subset != "monomer" && row.Subset != "multimer") {
					return derrors.Permanent(fmt.Errorf("%s row %d: subset is %v, want monomer or multimer", f, at, v[1]))
				}
				if v[2] != nil {
					if row.ClusterIDs, ok = v[2].([]int64); !ok {
						return derrors.Permanent(fmt.Errorf("%s row %d: cluster_ids is %T, want a list of integers", f, at, v[2]))
					}
				}
				row.SeqSHA1, _ = v[3].(string)
				if v[4] != nil {
					x, ok := v[4].(float64)
					if !ok {
						return derrors.Permanent(fmt.Errorf("%s row %d: resolution is %T", f, at, v[4]))
					}
					row.Resolution = &x
				}
				if row.SeqLen, ok = v[5].(int64); !ok {
					return derrors.Permanent(fmt.Errorf("%s row %d: seq_len is %v", f, at, v[5]))
				}
				rows = append(rows, row)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// materialize reads the chosen rows whole, file by file, into output order.
func materialize(ctx context.Context, store blob.Store, files []string, cols []format.Column, ordered []Row, chosen []int) ([][]any, error) {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	dest := map[string]map[int64]int{}
	for k, i := range chosen {
		r := ordered[i]
		if dest[r.File] == nil {
			dest[r.File] = map[int64]int{}
		}
		dest[r.File][r.Index] = k
	}
	out := make([][]any, len(chosen))
	for _, f := range files {
		want := dest[f]
		if len(want) == 0 {
			continue
		}
		err := manifest.ReadFile(ctx, store, f, nil, names, func(r *manifest.Rows) error {
			for i, v := range r.Values {
				if k, ok := want[r.First+int64(i)]; ok {
					out[k] = v
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for k, v := range out {
		if v == nil {
			return nil, fmt.Errorf("chosen row %d was not read back", k)
		}
	}
	return out, nil
}

// writeShards writes out as corpus shards, RowsPerShard rows each, each
// with its own balanced accounting (rows_in = docs_out).
func writeShards(ctx context.Context, store blob.Store, base string, opts CutOptions, cols []format.Column, out [][]any, st *Stats) error {
	total := max(1, (len(out)+opts.RowsPerShard-1)/opts.RowsPerShard)
	tok := slices.IndexFunc(cols, func(c format.Column) bool { return c.Name == "num_tokens" })
	for s := 0; s < total; s++ {
		w, err := corpus.NewWriter(corpus.Schema{Columns: cols})
		if err != nil {
			return err
		}
		part := out[min(len(out), s*opts.RowsPerShard):min(len(out), (s+1)*opts.RowsPerShard)]
		for _, v := range part {
			if tok >= 0 {
				if n, ok := v[tok].(int64); ok {
					st.Tokens += n
				}
			}
			if err := w.Append(v); err != nil {
				w.Close()
				return err
			}
		}
		data, err := w.Finish(corpus.Accounting{RunID: "dedup", Shard: s, Total: total, Format: "dedup",
			RowsIn: int64(len(part)), DocsOut: int64(len(part))})
		if err != nil {
			return err
		}
		name := fmt.Sprintf("%s-%05d-of-%05d.parquet", opts.Prefix, s, total)
		if err := store.Create(ctx, base+name, data); err != nil {
			return err
		}
		st.Shards = append(st.Shards, name)
	}
	return nil
}
