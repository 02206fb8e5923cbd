package localrun_test

import (
	"bufio"
	"context"
	"encoding/json"
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
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

type golden struct {
	File            string  `json:"file"`
	ResiduePLDDTMin float64 `json:"residue_plddt_min"`
	EntryID         string  `json:"entry_id"`
	NResidues       int64   `json:"n_residues"`
	GlobalPLDDT     float64 `json:"global_plddt"`
	Outcome         string  `json:"outcome"`
	SHA1            string  `json:"sha1"`
	Document        string  `json:"document"`
	Error           string  `json:"error"`
}

func readGolden(t *testing.T, dir string) []golden {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "golden", "contacts-and-distances-v2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []golden
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var g golden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

// chainFilter returns the filter reason that a golden chain error (the
// reference's "no polymer chain" and "expected single polymer chain, found
// N") must be counted under, or "".
func chainFilter(goldenError string) string {
	switch {
	case strings.Contains(goldenError, ": expected single polymer chain, found "):
		return distancesv2.FilteredMultiChain
	case strings.HasSuffix(goldenError, ": no polymer chain"):
		return distancesv2.FilteredNoPolymer
	}
	return ""
}

var manifestCols = []format.Column{
	{Name: "entry_id", Type: format.String},
	{Name: "gcs_uri", Type: format.String},
	{Name: "cif_content", Type: format.String},
	{Name: "split", Type: format.String},
	{Name: "seq_len", Type: format.Int64}, // the format writes its own seq_len
}

func writeManifest(t *testing.T, path string, rows [][]any, rowGroupRows int) {
	t.Helper()
	data, err := manifest.Encode(manifestCols, rows, rowGroupRows)
	if err != nil {
		t.Fatal(err)
	}
	if err := (localblob.Store{}).Create(context.Background(), path, data); err != nil {
		t.Fatal(err)
	}
}

// TestEndToEndCorpus builds manifests over every ../shared/corpus file, for
// each residue_plddt_min setting of the golden file and both input modes
// (URI and inline text), runs the pipeline, and checks: every row is
// accounted for, documents equal the golden ones, every file the reference
// could not turn into a document fails its shard with its entry id, except
// the reference's chain errors, which are counted as filtered by reason, and
// DuckDB reads the output with the documented schema and row count.
func TestEndToEndCorpus(t *testing.T) {
	dir := testcorpus.Dir(t)
	gold := readGolden(t, dir)
	if len(gold) < 80 {
		t.Fatalf("golden has %d lines, want every corpus file", len(gold))
	}
	byMin := map[float64][]golden{}
	for _, g := range gold {
		byMin[g.ResiduePLDDTMin] = append(byMin[g.ResiduePLDDTMin], g)
	}
	ctx := context.Background()
	for _, mode := range []string{"uri", "inline"} {
		for pmin, gs := range byMin {
			t.Run(fmt.Sprintf("%s/plddt_min=%g", mode, pmin), func(t *testing.T) {
				tmp := t.TempDir()
				var docs [][]any
				var wantDocs []golden
				errFiles := map[string]golden{} // entry id -> golden
				wantFiltered := map[string]int64{}
				for _, g := range gs {
					path := filepath.Join(dir, g.File)
					text, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					id := g.EntryID
					if id == "" {
						id = strings.TrimSuffix(filepath.Base(g.File), ".cif")
					}
					row := []any{id, "file://" + path, string(text), "train", int64(-1)}
					if g.Outcome == "document" {
						docs = append(docs, row)
						wantDocs = append(wantDocs, g)
						continue
					}
					// The reference's chain errors are designed-in filters
					// here: counted by reason in a shard that is done.
					if reason := chainFilter(g.Error); reason != "" {
						docs = append(docs, row)
						wantFiltered[reason]++
						continue
					}
					// A file the reference fails on gets its own manifest
					// (so its own shard): that shard must fail, naming it.
					errFiles[id] = g
					writeManifest(t, filepath.Join(tmp, "m", "err-"+id+".parquet"), [][]any{row}, 0)
				}
				// Document rows: one file, row groups of 5, one shard per 2 row groups.
				writeManifest(t, filepath.Join(tmp, "m", "docs.parquet"), docs, 5)
				spec := planner.Spec{
					Manifest: filepath.Join(tmp, "m", "*.parquet"), Format: "contacts-and-distances-v2",
					Options: map[string]string{"residue_plddt_min": fmt.Sprint(pmin)},
					Output:  filepath.Join(tmp, "out"), RowGroupsPerShard: 2,
					// The corpus holds v3 and v4 models of one accession (one
					// entry_id), and the reference writes both.
					AllowDuplicateIDs: true,
				}
				if mode == "inline" {
					spec.TextColumn = "cif_content"
				}
				sum, err := localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 2, Parse: mmcif.ReadInto})
				if len(errFiles) > 0 && !errors.Is(err, localrun.ErrIncomplete) {
					t.Fatalf("Run = %v, want ErrIncomplete (%d files the reference fails on)", err, len(errFiles))
				}
				if len(errFiles) == 0 && err != nil {
					t.Fatalf("Run: %v", err)
				}
				if n := len(sum.Plan.Schemas); n != len(errFiles)+1 {
					t.Fatalf("planned %d manifests, want %d", n, len(errFiles)+1)
				}
				if read, size := sum.Plan.FooterBytes(); read >= size {
					t.Errorf("planner read %d of %d manifest bytes: want footers only", read, size)
				}

				// Ledger: every row accounted for; failures name their entry.
				_, shards, err := localledger.Snapshot(filepath.Join(spec.Output, localledger.FileName))
				if err != nil {
					t.Fatal(err)
				}
				var rowsIn, docsOut int64
				filtered := map[string]int64{}
				failed := map[string]bool{}
				for _, s := range shards[sum.Plan.Run.ID] {
					switch s.Status {
					case ledger.Done:
						c := s.Counts
						var filt int64
						for _, n := range c.Filtered {
							filt += n
						}
						if c.RowsIn != c.DocsOut+filt+c.Skipped {
							t.Errorf("shard %d: rows_in %d != docs %d + filtered %d + skipped %d", s.Index, c.RowsIn, c.DocsOut, filt, c.Skipped)
						}
						rowsIn += c.RowsIn
						docsOut += c.DocsOut
						for k, n := range c.Filtered {
							filtered[k] += n
						}
					case ledger.Failed:
						if _, ok := errFiles[s.EntryID]; !ok || s.Error == "" {
							t.Errorf("shard %d failed at entry %q (%s); the reference writes a document for it", s.Index, s.EntryID, s.Error)
						}
						failed[s.EntryID] = true
					default:
						t.Errorf("shard %d is %s after the run", s.Index, s.Status)
					}
				}
				for id, g := range errFiles {
					if !failed[id] {
						t.Errorf("%s: the reference fails (%s) but its shard did not", g.File, g.Error)
					}
				}
				if rowsIn != int64(len(docs)) || docsOut != int64(len(wantDocs)) || fmt.Sprint(filtered) != fmt.Sprint(wantFiltered) {
					t.Errorf("done shards: rows_in %d, docs %d, filtered %v; want %d, %d, %v", rowsIn, docsOut, filtered, len(docs), len(wantDocs), wantFiltered)
				}

				// Documents equal the golden ones, in manifest order.
				outs, err := (localblob.Store{}).List(ctx, filepath.Join(spec.Output, "part-*.parquet"))
				if err != nil {
					t.Fatal(err)
				}
				var got [][]any
				for _, o := range outs {
					err := corpus.Read(ctx, localblob.Store{}, o, []string{"entry_id", "document", "sha1", "seq_len", "global_plddt", "structure"}, func(r *manifest.Rows) error {
						got = append(got, r.Values...)
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				if len(got) != len(wantDocs) {
					t.Fatalf("read %d documents, want %d", len(got), len(wantDocs))
				}
				for i, g := range wantDocs {
					r := got[i]
					if r[0] != g.EntryID || r[1] != g.Document || r[2] != g.SHA1 || r[3] != g.NResidues || r[4] != g.GlobalPLDDT {
						t.Errorf("%s: got entry %v sha1 %v seq_len %v plddt %v, want %s %s %d %v (documents equal: %v)",
							g.File, r[0], r[2], r[3], r[4], g.EntryID, g.SHA1, g.NResidues, g.GlobalPLDDT, r[1] == g.Document)
					}
					if mode == "uri" && r[5] != "file://"+filepath.Join(dir, g.File) {
						t.Errorf("%s: structure = %v", g.File, r[5])
					}
				}

				// DuckDB reads it with the documented schema and row count.
				glob := filepath.Join(spec.Output, "part-*.parquet")
				cols := duckcheck.Query(t, fmt.Sprintf("DESCRIBE SELECT * FROM read_parquet('%s')", glob))
				var schema []string
				for _, c := range cols {
					schema = append(schema, fmt.Sprintf("%v %v", c["column_name"], c["column_type"]))
				}
				want := []string{"entry_id VARCHAR", "structure VARCHAR", "document VARCHAR", "sha1 VARCHAR",
					"seq_len BIGINT", "global_plddt DOUBLE", "contacts_emitted BIGINT"}
				if len(schema) < len(want) || !slices.Equal(schema[:len(want)], want) || !slices.Contains(schema, "split VARCHAR") {
					t.Errorf("DuckDB schema = %v, want it to start with %v and carry split", schema, want)
				}
				if slices.Index(schema, "seq_len BIGINT") != slices.IndexFunc(schema, func(s string) bool { return strings.HasPrefix(s, "seq_len ") }) ||
					strings.Count(strings.Join(schema, ","), "seq_len") != 1 {
					t.Errorf("DuckDB schema %v: seq_len must appear once (the format's)", schema)
				}
				rows := duckcheck.Query(t, fmt.Sprintf("SELECT count(*) AS n, count(DISTINCT sha1) AS s, sum(CASE WHEN sha1 = sha1(document) THEN 1 ELSE 0 END) AS ok FROM read_parquet('%s')", glob))
				if fmt.Sprint(rows[0]["n"]) != fmt.Sprint(len(wantDocs)) || fmt.Sprint(rows[0]["ok"]) != fmt.Sprint(len(wantDocs)) {
					t.Errorf("DuckDB: %v, want %d rows, each sha1 = sha1(document)", rows, len(wantDocs))
				}
			})
		}
	}
}
