package hf_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/foldcorpus/foldcorpus/internal/duckcheck"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

const repo = "timodonnell/afdb-test"

// afdbFiles returns n AFDB-shaped files data/train-NNNNN-of-NNNNN.parquet
// with rows rows each in row groups of rowGroup rows.
func afdbFiles(tb testing.TB, n, rows, rowGroup int, structures bool, filler int) []hubtest.File {
	tb.Helper()
	var files []hubtest.File
	for i := 0; i < n; i++ {
		data, err := hubtest.AFDBFile(hubtest.ManifestOptions{First: i * rows, Rows: rows, RowGroup: rowGroup,
			Structures: structures, FillerBytes: filler})
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, hubtest.File{Path: fmt.Sprintf("data/train-%05d-of-%05d.parquet", i, n), Data: data})
	}
	return files
}

func testClient(srv *hubtest.Server, token string) *hf.Client {
	return hf.New(hf.Options{Endpoint: srv.URL(), Token: token, BaseBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond})
}

// cifRanges returns the byte ranges of the cif_content column chunks of a
// parquet file.
func cifRanges(tb testing.TB, data []byte) [][2]int64 {
	tb.Helper()
	pf, err := file.NewParquetReader(strings.NewReader(string(data)))
	if err != nil {
		tb.Fatal(err)
	}
	leaf := pf.MetaData().Schema.ColumnIndexByName("cif_content")
	var out [][2]int64
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(leaf)
		if err != nil {
			tb.Fatal(err)
		}
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		out = append(out, [2]int64{start, start + cc.TotalCompressedSize()})
	}
	return out
}

// TestFetchProjected fetches three AFDB-shaped files (4 row groups each,
// real mmCIF text inline) over a paginated tree and compares every output,
// row by row, with DuckDB's read of the projected columns of the full
// source file; the CDN's log shows that no byte of cif_content was read.
func TestFetchProjected(t *testing.T) {
	ctx := context.Background()
	files := afdbFiles(t, 3, 50, 16, true, 0)
	readme := hubtest.File{Path: "README.md", Data: []byte("# afdb test\n")}
	srv := hubtest.New(hubtest.Options{Repo: repo, Files: append(files, readme), PageSize: 2})
	defer srv.Close()
	c := testClient(srv, "")
	out := t.TempDir()
	src, err := hf.ParseSource("hf://datasets/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	res, err := hf.Fetch(ctx, c, hf.FetchOptions{Source: src, Out: out, Store: localblob.Store{}, Columns: hf.DefaultColumns, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Fetched != 3 || len(res.Lock.Files) != 3 || res.Lock.Revision != srv.Commit() {
		t.Fatalf("Fetch = %d fetched, lock %+v; want 3 files at %s", res.Fetched, res.Lock, srv.Commit())
	}
	// 5 tree entries (README.md, data/, 3 files) in pages of 2: 3 pages, plus the revision.
	cnt := srv.Counts()
	if cnt.APICalls != 4 || cnt.Resolves != 3 {
		t.Errorf("API calls %d, resolves %d; want 4 (revision + 3 tree pages) and 3 (one per file)", cnt.APICalls, cnt.Resolves)
	}
	// Per file: 2 footer reads, then per row group one read per run of
	// touching projected chunks (entry_id+gcs_uri, then the 8 after cif_content).
	if max := int64(3 * (2 + 4*2)); cnt.RangeReads > max {
		t.Errorf("range reads = %d, want at most %d", cnt.RangeReads, max)
	}
	var size int64
	for _, f := range files {
		size += int64(len(f.Data))
		cif := cifRanges(t, f.Data)
		for _, r := range srv.Ranges() {
			if r.Path != f.Path {
				continue
			}
			for _, c := range cif {
				if r.Off < c[1] && c[0] < r.Off+r.Len {
					t.Errorf("%s: range [%d, %d) overlaps cif_content chunk [%d, %d)", f.Path, r.Off, r.Off+r.Len, c[0], c[1])
				}
			}
		}
	}
	t.Logf("read %d of %d bytes (%.2f%%) in %d range requests", res.BytesRead, size, 100*float64(res.BytesRead)/float64(size), cnt.RangeReads)
	if res.BytesRead != cnt.BytesServed || res.BytesRead*10 > size {
		t.Errorf("bytes read %d (server served %d) of %d: want equal and under 10%%", res.BytesRead, cnt.BytesServed, size)
	}

	srcDir := t.TempDir()
	for _, f := range files {
		if err := os.MkdirAll(filepath.Join(srcDir, "data"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(srcDir, f.Path), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cols := "entry_id, gcs_uri, struct_cluster_id, seq_cluster_id, global_plddt, seq_len, split, uniprot_accession, tax_id, organism_name"
	rows := "SELECT parse_filename(filename) AS file, %s FROM read_parquet('%s/data/*.parquet', filename=true, file_row_number=true) ORDER BY filename, file_row_number"
	want := duckcheck.Query(t, fmt.Sprintf(rows, cols, srcDir))
	got := duckcheck.Query(t, fmt.Sprintf(rows, "* EXCLUDE (filename, file_row_number)", out))
	if len(want) != 150 || !reflect.DeepEqual(got, want) {
		t.Errorf("DuckDB reads %d rows from the outputs, %d projected rows from the sources; first differing:\n%s", len(got), len(want), firstDiff(got, want))
	}
	rgs := "SELECT parse_filename(file_name) AS f, row_group_id, any_value(row_group_num_rows) AS n FROM parquet_metadata('%s/data/*.parquet') GROUP BY 1, 2 ORDER BY 1, 2"
	if g, w := duckcheck.Query(t, fmt.Sprintf(rgs, out)), duckcheck.Query(t, fmt.Sprintf(rgs, srcDir)); len(w) != 12 || !reflect.DeepEqual(g, w) {
		t.Errorf("row groups %v, sources %v", g, w)
	}
}

func firstDiff(got, want []map[string]any) string {
	for i := 0; i < min(len(got), len(want)); i++ {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("row %d: got %v\nwant %v", i, got[i], want[i])
		}
	}
	return "(lengths differ)"
}
