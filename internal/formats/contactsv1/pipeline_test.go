package contactsv1_test

// End to end: a parquet manifest of analysis records, built from the golden
// inputs, through the driver of `foldcorpus run` (the planner and the shard
// worker the cloud functions also use); every row is accounted for, every
// document and metadata row equals the reference's, a rerun resumes to a
// no-op, and DuckDB reads the output.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/duckcheck"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/planner"
)

var manifestSchema = arrow.NewSchema([]arrow.Field{
	{Name: "entry_id", Type: arrow.BinaryTypes.String},
	{Name: "seq_len", Type: arrow.PrimitiveTypes.Int64},
	{Name: "global_plddt", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "num_contacts", Type: arrow.PrimitiveTypes.Int64},
	{Name: "residue_resname", Type: arrow.ListOf(arrow.BinaryTypes.String)},
	{Name: "residue_resnum", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	{Name: "residue_chain", Type: arrow.ListOf(arrow.BinaryTypes.String)},
	{Name: "contact_seq_i", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	{Name: "contact_seq_j", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	{Name: "contact_degree", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
	{Name: "split", Type: arrow.BinaryTypes.String}, // a passthrough column
}, nil)

// writeManifest writes the cases' inputs as one parquet manifest with row
// groups of rowGroup rows; row k's split is "split-k".
func writeManifest(t *testing.T, path string, cases []contactsv1.GoldenCase, rowGroup int) {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, manifestSchema)
	defer b.Release()
	strs := func(fb array.Builder, vals []string) {
		lb := fb.(*array.ListBuilder)
		lb.Append(true)
		for _, v := range vals {
			lb.ValueBuilder().(*array.StringBuilder).Append(v)
		}
	}
	ints := func(fb array.Builder, vals []int64) {
		lb := fb.(*array.ListBuilder)
		lb.Append(true)
		for _, v := range vals {
			lb.ValueBuilder().(*array.Int32Builder).Append(int32(v))
		}
	}
	for k, c := range cases {
		r := c.Record
		b.Field(0).(*array.StringBuilder).Append(r["entry_id"].(string))
		b.Field(1).(*array.Int64Builder).Append(r["seq_len"].(int64))
		if p, ok := r["global_plddt"].(float64); ok {
			b.Field(2).(*array.Float64Builder).Append(p)
		} else {
			b.Field(2).AppendNull()
		}
		b.Field(3).(*array.Int64Builder).Append(r["num_contacts"].(int64))
		strs(b.Field(4), r["residue_resname"].([]string))
		ints(b.Field(5), r["residue_resnum"].([]int64))
		strs(b.Field(6), r["residue_chain"].([]string))
		ints(b.Field(7), r["contact_seq_i"].([]int64))
		ints(b.Field(8), r["contact_seq_j"].([]int64))
		lb := b.Field(9).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Float64Builder).AppendValues(r["contact_degree"].([]float64), nil)
		b.Field(10).(*array.StringBuilder).Append(fmt.Sprintf("split-%d", k))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(manifestSchema, f,
		parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(rowGroup))), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestPipelineRun(t *testing.T) {
	all := contactsv1.LoadGolden(t)
	runs := []struct {
		name  string
		opts  map[string]string
		match func(variant string) bool
	}{
		{"default", nil, func(v string) bool { return v != "think" }},
		{"think", map[string]string{"think": "true"}, func(v string) bool { return v == "think" }},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			var cases []contactsv1.GoldenCase
			for _, c := range all {
				if run.match(c.Variant) {
					cases = append(cases, c)
				}
			}
			ctx := context.Background()
			dir := t.TempDir()
			writeManifest(t, filepath.Join(dir, "records.parquet"), cases, 4)
			store := localblob.Store{}
			spec := planner.Spec{
				Manifest: filepath.Join(dir, "*.parquet"), Format: contactsv1.Name, Options: run.opts,
				Output: filepath.Join(dir, "out"), RowGroupsPerShard: 2,
				AllowDuplicateIDs: true, // the golden records hold two models of some accessions
			}
			// The driver of `foldcorpus run`: planner, then the shard worker on
			// every shard, two at a time.
			sum, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 2})
			if err != nil {
				t.Fatalf("localrun.Run: %v", err)
			}
			plan := sum.Plan
			if len(plan.Messages) < 2 || sum.Done != len(plan.Messages) {
				t.Fatalf("planned %d shards, %d done; want several (row groups of 4, 2 per shard), all done",
					len(plan.Messages), sum.Done)
			}
			// Rerunning the same command finds every shard done.
			again, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 2})
			if err != nil || again.Done != 0 || again.AlreadyDone != len(plan.Messages) {
				t.Fatalf("rerun: %d done, %d already done, err %v; want 0, %d, nil", again.Done, again.AlreadyDone, err, len(plan.Messages))
			}

			// Every row accounted for, per shard and in total.
			var rowsIn, docsOut int64
			filtered := map[string]int64{}
			got := map[string][]map[string]any{} // entry_id -> output rows
			for _, msg := range plan.Messages {
				meta, err := corpus.ReadMeta(ctx, store, msg.Output)
				if err != nil {
					t.Fatal(err)
				}
				if !meta.Accounting.Balanced() {
					t.Errorf("shard %d accounting does not balance: %+v", msg.Shard, meta.Accounting)
				}
				rowsIn += meta.Accounting.RowsIn
				docsOut += meta.Accounting.DocsOut
				for r, n := range meta.Accounting.Filtered {
					filtered[r] += n
				}
				err = corpus.Read(ctx, store, msg.Output, nil, func(rows *manifest.Rows) error {
					for _, vals := range rows.Values {
						row := map[string]any{}
						for j, name := range rows.Columns {
							row[name] = vals[j]
						}
						id := row["entry_id"].(string)
						got[id] = append(got[id], row)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			wantDocs, wantFiltered := 0, 0
			for _, c := range cases {
				if c.Outcome == "document" {
					wantDocs++
				} else {
					wantFiltered++
				}
			}
			if rowsIn != int64(len(cases)) || docsOut != int64(wantDocs) || filtered[contactsv1.FilterTooLong] != int64(wantFiltered) {
				t.Errorf("rows_in %d docs_out %d filtered %v; want %d, %d, %s: %d", rowsIn, docsOut, filtered,
					len(cases), wantDocs, contactsv1.FilterTooLong, wantFiltered)
			}

			// Each written row equals the reference's, passthrough included.
			for k, c := range cases {
				if c.Outcome != "document" {
					if len(got[c.EntryID]) != 0 {
						t.Errorf("%s: filtered by the reference but written", c.EntryID)
					}
					continue
				}
				rows := got[c.EntryID]
				if len(rows) == 0 {
					t.Errorf("%s: no output row", c.EntryID)
					continue
				}
				row := toJSON(t, rows[0])
				for col, want := range c.Output {
					if !reflect.DeepEqual(row[col], want) {
						t.Errorf("%s: column %s = %v, want %v", c.EntryID, col, row[col], want)
					}
				}
				// Duplicate entry ids in the manifest are identical inputs:
				// find this row's passthrough among them.
				split := fmt.Sprintf("split-%d", k)
				found := false
				for _, r := range rows {
					found = found || r["split"] == split
				}
				if !found {
					t.Errorf("%s: no output row carries passthrough split=%s", c.EntryID, split)
				}
			}

			// DuckDB reads the corpus with the documented types.
			sql := fmt.Sprintf(`SELECT count(*) AS n, count(DISTINCT split) AS splits,
				sum(contacts_emitted) AS emitted, sum(len(chain_lengths)) AS chains,
				count(global_plddt) AS plddt, bool_and(sha1 = sha1(document)) AS sha_ok,
				typeof(any_value(chain_ids)) AS chain_ids_type,
				typeof(any_value(highest_contact_degree)) AS degree_type
				FROM read_parquet('%s')`, filepath.Join(dir, "out", "*.parquet"))
			rows := duckcheck.Query(t, sql)
			var wantEmitted, wantChains, wantPLDDT int
			for _, c := range cases {
				if c.Outcome == "document" {
					wantEmitted += int(c.Output["contacts_emitted"].(float64))
					wantChains += len(c.Output["chain_ids"].([]any))
					if c.Output["global_plddt"] != nil {
						wantPLDDT++
					}
				}
			}
			want := map[string]string{
				"n": fmt.Sprint(wantDocs), "splits": fmt.Sprint(wantDocs), "emitted": fmt.Sprint(wantEmitted),
				"chains": fmt.Sprint(wantChains), "plddt": fmt.Sprint(wantPLDDT), "sha_ok": "true",
				"chain_ids_type": "VARCHAR[]", "degree_type": "DOUBLE",
			}
			keys := make([]string, 0, len(want))
			for k := range want {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if g := fmt.Sprint(rows[0][k]); g != want[k] {
					t.Errorf("DuckDB %s = %s, want %s", k, g, want[k])
				}
			}
		})
	}
}

// toJSON renders a row as decoded JSON values, to compare with the golden.
func toJSON(t *testing.T, row map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPipelineMalformedRecord: a record whose contact has seq_i >= seq_j
// fails its shard loudly, naming the entry; the other shard completes and
// the run never reads complete.
func TestPipelineMalformedRecord(t *testing.T) {
	var cases []contactsv1.GoldenCase
	for _, c := range contactsv1.LoadGolden(t) {
		if c.Variant == "default" && c.Outcome == "document" && len(cases) < 8 {
			cases = append(cases, c)
		}
	}
	bad := &cases[5]
	rec := maps.Clone(bad.Record)
	ci := slices.Clone(rec["contact_seq_i"].([]int64))
	cj := rec["contact_seq_j"].([]int64)
	ci[0] = cj[0] // seq_i == seq_j
	rec["contact_seq_i"] = ci
	bad.Record = rec
	dir := t.TempDir()
	writeManifest(t, filepath.Join(dir, "records.parquet"), cases, 4)
	spec := planner.Spec{Manifest: filepath.Join(dir, "*.parquet"), Format: contactsv1.Name,
		Output: filepath.Join(dir, "out"), RowGroupsPerShard: 1, AllowDuplicateIDs: true}
	sum, err := localrun.Run(context.Background(), localrun.Config{Spec: spec, Workers: 1})
	if !errors.Is(err, localrun.ErrIncomplete) || sum == nil || len(sum.Failed) != 1 || sum.Done != 1 {
		t.Fatalf("localrun.Run = %+v, %v; want one failed and one done shard, ErrIncomplete", sum, err)
	}
	msg := sum.Failed[0].Err.Error()
	t.Logf("failed shard: %s", msg)
	if sum.Failed[0].Shard != 1 || !errors.Is(sum.Failed[0].Err, derrors.ErrPermanent) ||
		!strings.Contains(msg, bad.EntryID) || !strings.Contains(msg, "seq_i < seq_j") {
		t.Errorf("shard %d failed with %q; want shard 1, permanent, naming %s and the contact", sum.Failed[0].Shard, msg, bad.EntryID)
	}
}
