// Package coordrun drives the coordinate formats' golden files through
// `foldcorpus run`'s driver (localrun: the planner and the shard worker the
// cloud functions also use) for tests: a manifest of the corpus files, one
// parquet per shard out, every row accounted for, every document checked
// against the golden sha1, and DuckDB reading the output.
package coordrun

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/duckcheck"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/report"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

var manifestCols = []format.Column{
	{Name: "entry_id", Type: format.String},
	{Name: "gcs_uri", Type: format.String},
	{Name: "split", Type: format.String},
}

// Run runs the golden lines through localrun with newFormat (the
// registry's formats when nil) resolving formatName with opts. It checks that every
// document row is byte-identical to the golden one (sha1 of the document
// and the sha1 column), that the filtered rows are counted by the
// reference's reason, that each file the reader rejects fails its own
// shard naming its entry id, and that DuckDB reads the output. It returns
// the number of documents checked.
func Run(t *testing.T, formatName string, lines []coordgolden.Line, opts map[string]string,
	newFormat func(name string, opts map[string]string) (format.Format, error)) int {
	t.Helper()
	dir := testcorpus.Dir(t)
	tmp := t.TempDir()
	ctx := context.Background()
	var rows [][]any
	var want []string // "entry_id sha1"
	wantFiltered := map[string]int64{}
	errIDs := map[string]string{}
	for k, l := range lines {
		path := filepath.Join(dir, l.File)
		id := l.ID()
		if id == "" {
			id = strings.TrimSuffix(filepath.Base(l.File), ".cif")
		}
		row := []any{id, "file://" + path, fmt.Sprintf("split-%d", k)}
		exp := l.Expected(t)
		switch exp {
		case "document":
			want = append(want, id+" "+l.SHA1)
		case coordgolden.ReadError:
			if st, err := mmcif.ReadFile(path); err == nil && len(st.Models) == 0 {
				// gemmi's IndexError; we read 0 models (no protein residues)
				wantFiltered[coordfront.FilterNoProtein]++
				break
			}
			errIDs[id] = l.File
			write(t, filepath.Join(tmp, "m", "err-"+id+".parquet"), [][]any{row}, 0)
			continue
		default:
			wantFiltered[exp]++
		}
		rows = append(rows, row)
	}
	write(t, filepath.Join(tmp, "m", "docs.parquet"), rows, 5)
	spec := planner.Spec{Manifest: filepath.Join(tmp, "m", "*.parquet"), Format: formatName, Options: opts,
		Output: filepath.Join(tmp, "out"), RowGroupsPerShard: 2,
		// model versions of one accession (…-model_v3, …-model_v4) share
		// their entry id, the seed, as in the reference's golden run
		AllowDuplicateIDs: true}
	_, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 2, Parse: mmcif.ReadInto, NewFormat: newFormat})
	if len(errIDs) > 0 && !errors.Is(err, localrun.ErrIncomplete) {
		t.Fatalf("Run = %v, want ErrIncomplete (%d files the reader rejects)", err, len(errIDs))
	}
	if len(errIDs) == 0 && err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkLedger(t, filepath.Join(spec.Output, localledger.FileName), int64(len(rows)), int64(len(want)), wantFiltered, errIDs)
	t.Logf("%d rows: %d documents, filtered %v, %d files failing their shards", len(rows)+len(errIDs), len(want), wantFiltered, len(errIDs))

	var got []string
	outs, err := (localblob.Store{}).List(ctx, filepath.Join(spec.Output, "part-*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		err := corpus.Read(ctx, localblob.Store{}, o, []string{"entry_id", "document", "sha1"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				sum := sha1.Sum([]byte(v[1].(string)))
				if s := hex.EncodeToString(sum[:]); s != v[2] {
					t.Errorf("%v: sha1 column %v, document's sha1 %s", v[0], v[2], s)
				}
				got = append(got, fmt.Sprintf("%v %v", v[0], v[2]))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("documents (entry_id sha1) differ from the golden ones:\n got %v\nwant %v", got, want)
	}
	checkDuckDB(t, filepath.Join(spec.Output, "part-*.parquet"), len(want))
	checkReport(t, spec.Output, formatName, lines)
	return len(want)
}

// checkReport builds the run's corpus report and checks its coordinate
// figures against the golden metadata (sums over the documents) and
// against DuckDB's sums over the output.
func checkReport(t *testing.T, out, formatName string, lines []coordgolden.Line) {
	t.Helper()
	rep, err := report.Build(context.Background(), localblob.Store{}, out, report.Options{Format: formatName})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Summary.Coordinates
	if c == nil {
		t.Fatal("the report has no coordinate figures")
	}
	col := map[string]string{format.MixContact: "contacts_emitted", format.MixCoordinate: "num_events"}
	if formatName == "contacts-and-crops-v1" {
		col[format.MixCoordinate] = "num_pass1_mentions"
		col[format.MixCrop], col[format.MixCropAtom] = "num_crops", "crop_atoms_emitted"
	}
	want := map[string]int64{}
	var tokens, docs, seq int64
	for _, l := range lines {
		if l.Outcome != "document" {
			continue
		}
		docs++
		tokens += int64(l.NumTokens)
		seq += 2*int64(l.Metadata["seq_len"].(float64)) + 4
		for class, key := range col {
			want[class] += int64(l.Metadata[key].(float64))
		}
	}
	glob := filepath.Join(out, "part-*.parquet")
	for class, key := range col {
		if c.Totals[class] != want[class] {
			t.Errorf("report: %s total %d, golden %s sum %d", class, c.Totals[class], key, want[class])
		}
		rows := duckcheck.Query(t, fmt.Sprintf("SELECT sum(%s) AS s FROM read_parquet('%s')", key, glob))
		if fmt.Sprint(rows[0]["s"]) != fmt.Sprint(want[class]) {
			t.Errorf("DuckDB: sum(%s) = %v, golden %d", key, rows[0]["s"], want[class])
		}
	}
	tc := c.TokenComposition
	if tc["sequence"] != seq || tc["other"] != 4*docs || tc["sequence"]+tc["contact_statements"]+tc["coordinates"]+tc["other"] != tokens {
		t.Errorf("report token composition %v: want sequence %d, other %d (4 per document), all %d", tc, seq, 4*docs, tokens)
	}
	if _, ok := rep.Files["coordinate_composition.png"]; !ok {
		t.Errorf("report has no coordinate_composition.png (files %d)", len(rep.Files))
	}
}

func write(t *testing.T, path string, rows [][]any, rowGroup int) {
	t.Helper()
	data, err := manifest.Encode(manifestCols, rows, rowGroup)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := (localblob.Store{}).Create(context.Background(), path, data); err != nil {
		t.Fatal(err)
	}
}

func checkLedger(t *testing.T, path string, rowsIn, docs int64, wantFiltered map[string]int64, errIDs map[string]string) {
	t.Helper()
	_, shards, err := localledger.Snapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	var gotIn, gotDocs int64
	filtered := map[string]int64{}
	failed := map[string]bool{}
	for _, run := range shards {
		for _, s := range run {
			switch s.Status {
			case ledger.Done:
				c := s.Counts
				var f int64
				for k, n := range c.Filtered {
					filtered[k] += n
					f += n
				}
				if c.RowsIn != c.DocsOut+f+c.Skipped {
					t.Errorf("shard %d: rows_in %d != docs %d + filtered %d + skipped %d", s.Index, c.RowsIn, c.DocsOut, f, c.Skipped)
				}
				gotIn += c.RowsIn
				gotDocs += c.DocsOut
			case ledger.Failed:
				if _, ok := errIDs[s.EntryID]; !ok || s.Error == "" {
					t.Errorf("shard %d failed at %q (%s); the reference reads that file", s.Index, s.EntryID, s.Error)
				}
				failed[s.EntryID] = true
			default:
				t.Errorf("shard %d is %s after the run", s.Index, s.Status)
			}
		}
	}
	for id, file := range errIDs {
		if !failed[id] {
			t.Errorf("%s: gemmi fails on it, but its shard did not fail", file)
		}
	}
	if gotIn != rowsIn || gotDocs != docs || fmt.Sprint(filtered) != fmt.Sprint(wantFiltered) {
		t.Errorf("done shards: rows_in %d, docs %d, filtered %v; want %d, %d, %v", gotIn, gotDocs, filtered, rowsIn, docs, wantFiltered)
	}
}

func checkDuckDB(t *testing.T, glob string, docs int) {
	t.Helper()
	cols := duckcheck.Query(t, fmt.Sprintf("DESCRIBE SELECT * FROM read_parquet('%s')", glob))
	var schema []string
	for _, c := range cols {
		schema = append(schema, fmt.Sprintf("%v %v", c["column_name"], c["column_type"]))
	}
	for _, c := range []string{"entry_id VARCHAR", "document VARCHAR", "sha1 VARCHAR", "seq_len BIGINT",
		"global_plddt DOUBLE", "quat_w DOUBLE", "trans_z DOUBLE", "truncated BOOLEAN", "num_tokens BIGINT", "split VARCHAR"} {
		if !slices.Contains(schema, c) {
			t.Errorf("DuckDB schema %v lacks %s", schema, c)
		}
	}
	rows := duckcheck.Query(t, fmt.Sprintf(`SELECT count(*) AS n, sum(CASE WHEN sha1 = sha1(document) THEN 1 ELSE 0 END) AS ok,
		sum(CASE WHEN num_tokens = len(string_split(document, ' ')) THEN 1 ELSE 0 END) AS tok FROM read_parquet('%s')`, glob))
	if fmt.Sprint(rows[0]["n"]) != fmt.Sprint(docs) || fmt.Sprint(rows[0]["ok"]) != fmt.Sprint(docs) || fmt.Sprint(rows[0]["tok"]) != fmt.Sprint(docs) {
		t.Errorf("DuckDB: %v, want %d rows, each with sha1 = sha1(document) and num_tokens its token count", rows, docs)
	}
}
