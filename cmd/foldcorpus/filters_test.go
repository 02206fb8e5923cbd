package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// runCLIText runs the built binary (runCLI) and returns stdout and stderr
// together and the exit status.
func runCLIText(t *testing.T, args ...string) (string, int) {
	t.Helper()
	o, e, code := runCLI(t, args...)
	return o + e, code
}

// writeCorpusManifest writes a manifest (entry_id, gcs_uri) over corpus
// files; a file name starting with "missing/" is an object that does not
// exist.
func writeCorpusManifest(t *testing.T, path, corpus string, files []string) {
	t.Helper()
	var rows [][]any
	for i, f := range files {
		rows = append(rows, []any{fmt.Sprintf("E%02d-%s", i, strings.TrimSuffix(filepath.Base(f), ".cif")), "file://" + filepath.Join(corpus, f)})
	}
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}
	data, err := manifest.Encode(cols, rows, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := (localblob.Store{}).Create(context.Background(), path, data); err != nil {
		t.Fatal(err)
	}
}

// TestRunFiltersChainsComplete: a run over a manifest mixing AFDB entries
// with multi-chain and no-polymer PDB and edge entries completes (exit 0),
// those rows counted as filtered by reason in the ledger and by status,
// which says COMPLETE and exits 0.
func TestRunFiltersChainsComplete(t *testing.T) {
	corpus := testcorpus.Dir(t)
	files := []string{
		"afdb/AF-P04637-F1-model_v4.cif", "pdb/4hhb.cif", "afdb/AF-A0A023HHL0-F1-model_v4.cif",
		"edge/biopython_1SSU_mod.cif", "pdb/2xhe.cif", "afdb/AF-A0A023HJ61-F1-model_v4.cif",
		"edge/biojava_difficult_mmcif_quoting.cif", "edge/modelcif_mini.cif",
	}
	dir := t.TempDir()
	writeCorpusManifest(t, filepath.Join(dir, "m", "mixed.parquet"), corpus, files)
	out := filepath.Join(dir, "out")
	if text, code := runCLIText(t, "run", "--manifest", filepath.Join(dir, "m", "*.parquet"), "--out", out, "--workers", "1"); code != 0 {
		t.Fatalf("run exited %d:\n%s", code, text)
	}
	_, shards, err := localledger.Snapshot(filepath.Join(out, localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var c ledger.Counts
	for _, ss := range shards {
		for _, s := range ss {
			if s.Status != ledger.Done {
				t.Errorf("shard %d is %s: %s", s.Index, s.Status, s.Error)
			}
			c = s.Counts
		}
	}
	want := map[string]int64{distancesv2.FilteredMultiChain: 3, distancesv2.FilteredNoPolymer: 2}
	if c.RowsIn != 8 || c.DocsOut != 3 || c.Skipped != 0 || fmt.Sprint(c.Filtered) != fmt.Sprint(want) {
		t.Errorf("counts %+v, want 8 in, 3 docs, filtered %v", c, want)
	}
	text, code := runCLIText(t, "status", out)
	if code != 0 || !strings.Contains(text, "COMPLETE") || strings.Contains(text, "NOT COMPLETE") {
		t.Errorf("status exited %d, want 0 and COMPLETE:\n%s", code, text)
	}
	for reason, n := range want {
		if !strings.Contains(text, fmt.Sprintf("filtered %-20s %d\n", reason, n)) {
			t.Errorf("status does not count %d rows filtered as %q:\n%s", n, reason, text)
		}
	}
}

// TestRunBadRowsInStatus: a shard with several malformed rows (and a
// missing object) fails naming every one of them, in the ledger and in
// status; the other shard is done; run and status exit 1.
func TestRunBadRowsInStatus(t *testing.T) {
	corpus := testcorpus.Dir(t)
	dir := t.TempDir()
	bad := []string{
		"afdb/AF-P04637-F1-model_v4.cif", "edge/pymmcif_1bna-errors.cif", "pdb/4hhb.cif",
		"edge/biopandas_3eiy_stripped_ele.cif", "missing/nothing-here.cif", "edge/pymmcif_unicode-test.cif",
	}
	writeCorpusManifest(t, filepath.Join(dir, "m", "a-bad.parquet"), corpus, bad)
	writeCorpusManifest(t, filepath.Join(dir, "m", "b-good.parquet"), corpus, []string{"afdb/AF-A0A023HHL0-F1-model_v4.cif"})
	out := filepath.Join(dir, "out")
	if text, code := runCLIText(t, "run", "--manifest", filepath.Join(dir, "m", "*.parquet"), "--out", out, "--workers", "1"); code != 1 {
		t.Fatalf("run exited %d, want 1:\n%s", code, text)
	}
	wantBad := []ledger.BadRow{{EntryID: "E01-pymmcif_1bna-errors", Row: 1, Stage: "parse"}, {EntryID: "E03-biopandas_3eiy_stripped_ele", Row: 3, Stage: "parse"},
		{EntryID: "E04-nothing-here", Row: 4, Stage: "fetch"}, {EntryID: "E05-pymmcif_unicode-test", Row: 5, Stage: "parse"}}
	_, shards, err := localledger.Snapshot(filepath.Join(out, localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, ss := range shards {
		if len(ss) != 2 || ss[0].Status != ledger.Failed || ss[1].Status != ledger.Done {
			t.Fatalf("shards %+v, want the first failed and the second done", ss)
		}
		got := ss[0].BadRows
		if len(got) != len(wantBad) || ss[0].EntryID != wantBad[0].EntryID {
			t.Fatalf("ledger bad rows %+v (entry %s), want %+v", got, ss[0].EntryID, wantBad)
		}
		for i, b := range got {
			if w := wantBad[i]; b.EntryID != w.EntryID || b.Row != w.Row || b.Stage != w.Stage || b.Error == "" {
				t.Errorf("bad row %d = %+v, want %+v with its error", i, b, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(out, "part-00000-of-00002.parquet")); err == nil {
		t.Errorf("the failed shard wrote its output")
	}
	text, code := runCLIText(t, "status", out)
	if code != 1 || !strings.Contains(text, "NOT COMPLETE") {
		t.Errorf("status exited %d, want 1 and NOT COMPLETE:\n%s", code, text)
	}
	for _, b := range wantBad {
		if !strings.Contains(text, fmt.Sprintf("bad row %d: entry %s: %s: ", b.Row, b.EntryID, b.Stage)) {
			t.Errorf("status does not name bad row %d (%s):\n%s", b.Row, b.EntryID, text)
		}
	}
}

// TestRunPassthroughColumns: extra manifest columns are not dropped
// silently: the output's accounting names them (and run says so), and
// --passthrough names the columns to copy, in that order.
func TestRunPassthroughColumns(t *testing.T) {
	cdir := testcorpus.Dir(t)
	dir := t.TempDir()
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String},
		{Name: "split", Type: format.String}, {Name: "note", Type: format.String}, {Name: "seq_len", Type: format.Int64}}
	rows := [][]any{
		{"AF-P04637-F1", "file://" + filepath.Join(cdir, "afdb/AF-P04637-F1-model_v4.cif"), "train", "kept?", int64(-1)},
		{"AF-A0A023HHL0-F1", "file://" + filepath.Join(cdir, "afdb/AF-A0A023HHL0-F1-model_v4.cif"), "val", "also", int64(-1)},
	}
	data, err := manifest.Encode(cols, rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "m.parquet")
	if err := (localblob.Store{}).Create(context.Background(), m, data); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		args        []string
		wantCols    string // output columns after the format's
		wantDropped string
		wantSay     string
	}{
		{name: "default set", wantCols: "[split]", wantDropped: "[note seq_len]",
			wantSay: "manifest columns not in the output: note (name the ones to keep with --passthrough)\nmanifest columns replaced by the format's own, computed from the structure: seq_len"},
		{name: "named", args: []string{"--passthrough", "note,split"}, wantCols: "[note split]", wantDropped: "[seq_len]",
			wantSay: "manifest columns replaced by the format's own, computed from the structure: seq_len"},
		{name: "none", args: []string{"--passthrough", ""}, wantCols: "[]", wantDropped: "[split note seq_len]",
			wantSay: "manifest columns not in the output: split, note (name the ones to keep with --passthrough)\nmanifest columns replaced by the format's own, computed from the structure: seq_len"},
	}
	for i, tt := range tests {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		text, code := runCLIText(t, append([]string{"run", "--manifest", m, "--out", out, "--workers", "1"}, tt.args...)...)
		if code != 0 || !strings.Contains(text, tt.wantSay) {
			t.Errorf("%s: run exited %d, want 0 and %q:\n%s", tt.name, code, tt.wantSay, text)
			continue
		}
		meta, err := corpus.ReadMeta(context.Background(), localblob.Store{}, filepath.Join(out, "part-00000-of-00001.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		extra := append([]string{}, meta.Columns[9:]...) // after entry_id structure document sha1 + the format's 5
		if fmt.Sprint(extra) != tt.wantCols || fmt.Sprint(meta.Accounting.DroppedColumns) != tt.wantDropped {
			t.Errorf("%s: output columns %v (passthrough %v), dropped %v; want passthrough %s, dropped %s",
				tt.name, meta.Columns, extra, meta.Accounting.DroppedColumns, tt.wantCols, tt.wantDropped)
		}
	}
}
