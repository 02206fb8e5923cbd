package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestCorpusReport builds the corpus of every ../shared/corpus file with the
// real local pipeline (planner, shard workers, mmcif, contacts-and-distances-v2,
// ledger), one shard per manifest file, lenient about one missing object;
// the shards holding the files the reference rejects fail, as they must. Then it reports the run and checks every figure of summary.json
// against DuckDB over the output parquet and the ledger, and every plot.
// The document count is checked against the golden file.
func TestCorpusReport(t *testing.T) {
	corpusDir := testcorpus.Dir(t)
	keep := os.Getenv("FOLDCORPUS_REPORT_KEEP") // a folder to keep the run and its report in
	ctx := context.Background()
	tmp := t.TempDir()
	if keep != "" {
		tmp = keep
	}
	mdir := filepath.Join(tmp, "manifest")
	if err := os.MkdirAll(mdir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The golden file says which files give a document; those go into
	// shards of 10, the ones the reference rejects for their chains (the
	// designed-in filters: counted, never fatal) into shards of 10 too, and
	// the rest of the rejected ones into shards of 8 (which fail).
	golden, err := os.ReadFile(filepath.Join(corpusDir, "golden", "contacts-and-distances-v2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var docFiles, filteredFiles, errFiles []string
	for _, line := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
		var g struct {
			File, Outcome, Error string
		}
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			t.Fatal(err)
		}
		switch {
		case g.Outcome == "document":
			docFiles = append(docFiles, g.File)
		case strings.Contains(g.Error, "expected single polymer chain") || strings.HasSuffix(g.Error, ": no polymer chain"):
			filteredFiles = append(filteredFiles, g.File)
		default:
			errFiles = append(errFiles, g.File)
		}
	}
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}
	nfiles, nrows := 0, 0
	for _, group := range []struct {
		name  string
		files []string
		size  int
	}{{"docs", docFiles, 10}, {"filtered", filteredFiles, 10}, {"rejected", errFiles, 8}} {
		for lo := 0; lo < len(group.files); lo += group.size {
			var rows [][]any
			for _, f := range group.files[lo:min(lo+group.size, len(group.files))] {
				rows = append(rows, []any{strings.TrimSuffix(filepath.Base(f), ".cif"), filepath.Join(corpusDir, f)})
			}
			if lo == 0 && group.name == "docs" {
				rows = append(rows, []any{"AF-MISSING-F1", filepath.Join(corpusDir, "afdb", "no-such-file.cif")})
			}
			data, err := manifest.Encode(cols, rows, 0)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(mdir, fmt.Sprintf("%s-%02d.parquet", group.name, lo/group.size)), data, 0o644); err != nil {
				t.Fatal(err)
			}
			nfiles++
			nrows += len(rows)
		}
	}
	out := filepath.Join(tmp, "out")
	spec := planner.Spec{Manifest: filepath.Join(mdir, "*.parquet"), Format: CADv2, Output: out, LenientMissing: true}
	_, err = localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 2, Parse: mmcif.ReadInto, Retries: -1})
	if err != nil && !errors.Is(err, localrun.ErrIncomplete) {
		t.Fatal(err)
	}
	l, err := localledger.Open(filepath.Join(out, localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	runs := l.Runs()
	if len(runs) != 1 {
		t.Fatalf("ledger holds %d runs, want 1", len(runs))
	}
	shards, err := l.Shards(ctx, runs[0].ID)
	l.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != nfiles {
		t.Fatalf("%d shards for %d manifest files", len(shards), nfiles)
	}

	// The statement mix from the documents themselves (every one
	// decompressed and tokenized), then from the generator's counts in the
	// footers, which the report reads by default: both must agree with
	// DuckDB's count over the documents.
	var s Summary
	for _, readDocs := range []bool{true, false} {
		rep, err := Build(ctx, localblob.Store{}, out, Options{Run: &runs[0], Shards: shards, ReadDocuments: readDocs})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rep.WriteDir(ctx, out); err != nil {
			t.Fatal(err)
		}
		s = checkSummary(t, out, shards, 8192, readDocs)
		checkPNGs(t, out, s, allPlots)
	}
	a := s.Accounting
	wantFailed := (len(errFiles) + 7) / 8
	var filtered int64
	for _, n := range a.Filtered {
		filtered += n
	}
	if a.ShardsDone != nfiles-wantFailed || a.ShardsFailed != wantFailed || a.DocsOut != int64(len(docFiles)) ||
		filtered != int64(len(filteredFiles)) || a.Skipped != 1 || s.Format != CADv2 || s.ShardsTotal != nfiles {
		t.Errorf("accounting %+v format %q shards %d: want %d done and %d failed shards, %d documents (as the golden file), %d filtered for their chains, 1 skipped, %d shards",
			a, s.Format, s.ShardsTotal, nfiles-wantFailed, wantFailed, len(docFiles), len(filteredFiles), nfiles)
	}
	t.Logf("corpus report: %d manifest rows in %d shards: %d done (%d rows in, %d documents, %d skipped), %d failed: %v",
		nrows, nfiles, a.ShardsDone, a.RowsIn, a.DocsOut, a.Skipped, a.ShardsFailed, a.Failures)
}
