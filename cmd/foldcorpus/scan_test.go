package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// pdbGoldenLines reads pdb-curation.jsonl: file, metadata, entry_filter
// and task of each of the 43 entries.
func pdbGoldenLines(t *testing.T) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(filepath.Join(testcorpus.Dir(t), "golden", "pdb-curation", "pdb-curation.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// readEntriesTable reads an entries table written by scan.
func readEntriesTable(t *testing.T, uri string) []pdbheader.Entry {
	t.Helper()
	store := cliStores()
	defer store.Close()
	got, err := readEntries(context.Background(), store, []string{uri})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// pdbMirror makes a divided-layout mirror (xy/ID.cif.gz, gzipped copies)
// of the 43 golden entries plus two unreadable files, and returns its
// folder.
func pdbMirror(t *testing.T) string {
	t.Helper()
	corpus := testcorpus.Dir(t)
	dir := t.TempDir()
	for _, g := range pdbGoldenLines(t) {
		var file string
		json.Unmarshal(g["file"], &file)
		data, err := os.ReadFile(filepath.Join(corpus, file))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(data)
		zw.Close()
		id := strings.TrimSuffix(filepath.Base(file), ".cif")
		p := filepath.Join(dir, id[1:3], id+".cif.gz")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "zz"), 0o755)
	os.WriteFile(filepath.Join(dir, "zz", "9bad.cif.gz"), []byte{0x1f, 0x8b, 0, 1}, 0o644)
	os.WriteFile(filepath.Join(dir, "zz", "9emp.cif.gz"), nil, 0o644)
	return dir
}

// TestScanCommand: scan of a gzipped divided mirror, by --input glob and
// by --manifest, gives the same table: per golden entry exp222's metadata
// (path aside: the file's path here), per unreadable file a row with the
// error; a second scan to the same --out is refused (create-only).
func TestScanCommand(t *testing.T) {
	ctx := context.Background()
	dir := pdbMirror(t)
	out := t.TempDir()
	byInput, byManifest, m := filepath.Join(out, "a.parquet"), filepath.Join(out, "b.parquet"), filepath.Join(out, "m.parquet")
	if err := runScan(ctx, []string{"--input", dir + "/**/*.cif.gz", "--out", byInput, "--workers", "3"}); err != nil {
		t.Fatal(err)
	}
	if err := runManifest(ctx, []string{dir + "/*/*.cif.gz", "--out", m, "--id", "pdb"}); err != nil {
		t.Fatal(err)
	}
	if err := runScan(ctx, []string{"--manifest", m, "--out", byManifest}); err != nil {
		t.Fatal(err)
	}
	a, b := readEntriesTable(t, byInput), readEntriesTable(t, byManifest)
	if len(a) != 45 {
		t.Fatalf("%d rows, want 45", len(a))
	}
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	if !bytes.Equal(aj, bj) {
		t.Errorf("scan --input and scan --manifest differ")
	}
	got := map[string]pdbheader.Entry{}
	for _, e := range a {
		got[e.PDBID] = e
	}
	for _, g := range pdbGoldenLines(t) {
		var want map[string]any
		json.Unmarshal(g["metadata"], &want)
		e, ok := got[want["pdb_id"].(string)]
		if !ok {
			t.Errorf("no row for %v", want["pdb_id"])
			continue
		}
		if !strings.HasSuffix(e.Path, "/"+e.PDBID+".cif.gz") {
			t.Errorf("%s: path %s", e.PDBID, e.Path)
		}
		e.Path = want["path"].(string)
		var have map[string]any
		row := e.Row()
		for i, c := range pdbheader.Columns() {
			if have == nil {
				have = map[string]any{}
			}
			v, _ := json.Marshal(row[i])
			var x any
			json.Unmarshal(v, &x)
			have[c.Name] = x
		}
		hj, _ := json.Marshal(have)
		wj, _ := json.Marshal(want)
		if !bytes.Equal(hj, wj) {
			t.Errorf("%s:\n got %s\nwant %s", e.PDBID, hj, wj)
		}
	}
	for _, id := range []string{"9bad", "9emp"} {
		if e := got[id]; e.Error == nil || !strings.HasSuffix(e.Path, id+".cif.gz") {
			t.Errorf("%s: %+v, want a row with the error", id, e)
		}
	}
	if err := runScan(ctx, []string{"--input", dir + "/**/*.cif.gz", "--out", byInput}); err == nil {
		t.Error("a second scan overwrote its --out")
	}
	if _, err := manifest.ReadSchema(ctx, cliStores(), byInput); err != nil {
		t.Fatal(err)
	}
}
