package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestDocFileMatchesGolden runs `foldcorpus doc`'s per-file path over a
// document, an error and an unreadable file, and checks each JSON line
// against the golden file (outcome, sha1, num_tokens), with < and > left
// unescaped in the output.
func TestDocFileMatchesGolden(t *testing.T) {
	dir := testcorpus.Dir(t)
	golden := map[string]map[string]any{}
	gf, err := os.Open(filepath.Join(dir, "golden", "contacts-and-distances-v2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer gf.Close()
	sc := bufio.NewScanner(gf)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		golden[m["file"].(string)] = m
	}
	f, err := formatRegistry.New(distancesv2.Name, map[string]string{"residue_plddt_min": "70"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ file, want string }{
		{"afdb/AF-P04637-F1-model_v4.cif", "document"},
		{"afdb/AF-A0A023HHL0-F1-model_v3.cif", "document"}, // mapped: over localblob.MinMapSize
		{"edge/pymmcif_1bna-errors.cif", "error"},
		{"edge/ciftools_0emp.cif", "error"},
	}
	r := newDocReader(f)
	for _, tt := range tests {
		raw, outcome := r.appendLine(nil, filepath.Join(dir, tt.file), "")
		var line docLine
		if err := json.Unmarshal(raw, &line); err != nil {
			t.Fatalf("%s: bad JSON line %.200q: %v", tt.file, raw, err)
		}
		g := golden[tt.file]
		if line.Outcome != tt.want || outcome != tt.want || g["outcome"] != tt.want {
			t.Errorf("%s: outcome %s (returned %s, golden %v), want %s", tt.file, line.Outcome, outcome, g["outcome"], tt.want)
			continue
		}
		// The line is what encoding/json writes for its own contents.
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
		if b.String() != string(raw) {
			t.Errorf("%s: line differs from encoding/json's:\n got %.300q\nwant %.300q", tt.file, raw, b.String())
		}
		if tt.want != "document" {
			if line.Error == "" || !strings.Contains(line.Error, tt.file) {
				t.Errorf("%s: error outcome %q does not name the file", tt.file, line.Error)
			}
			continue
		}
		if line.SHA1 != g["sha1"] || float64(line.NumTokens) != g["num_tokens"].(float64) || line.EntryID != g["entry_id"] || line.Document != g["document"] {
			t.Errorf("%s: sha1 %s, %d tokens, entry %s; golden %v, %v, %v (documents equal: %v)", tt.file, line.SHA1, line.NumTokens, line.EntryID,
				g["sha1"], g["num_tokens"], g["entry_id"], line.Document == g["document"])
		}
		if !strings.Contains(string(raw), `"document":"<contacts-and-distances-v2> <begin_sequence>`) {
			t.Errorf("%s: JSON line does not carry the document verbatim: %.120s", tt.file, raw)
		}
	}
}

// TestDocFileChangedWhileMapped: a file truncated while doc parses it
// from its mapping gives an error line naming the file (no crash), and the
// next file's line is unharmed.
func TestDocFileChangedWhileMapped(t *testing.T) {
	dir := testcorpus.Dir(t)
	good := filepath.Join(dir, "afdb", "AF-A0A023HHL0-F1-model_v3.cif")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < localblob.MinMapSize {
		t.Fatalf("%s: %d bytes, too small to be mapped", good, len(data))
	}
	victim := filepath.Join(t.TempDir(), "shrinks.cif")
	if err := os.WriteFile(victim, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := formatRegistry.New(distancesv2.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newDocReader(f)
	r.read = func(path string, buf []byte, fn func([]byte) error) ([]byte, error) {
		return localblob.ReadMapped(path, buf, func(data []byte) error {
			if path == victim {
				if err := os.Truncate(path, 8192); err != nil { // the mapping keeps its first two pages
					t.Fatal(err)
				}
			}
			return fn(data)
		})
	}
	before, outcome := r.appendLine(nil, good, "")
	if outcome != "document" {
		t.Fatalf("%s: outcome %s", good, outcome)
	}
	raw, outcome := r.appendLine(nil, victim, "")
	var line docLine
	if err := json.Unmarshal(raw, &line); err != nil {
		t.Fatalf("bad JSON line %.200q: %v", raw, err)
	}
	if outcome != "error" || line.Outcome != "error" || !strings.Contains(line.Error, victim) || !strings.Contains(line.Error, localblob.ErrFileChanged.Error()) {
		t.Errorf("file truncated while mapped: outcome %s, line %s; want an error naming the file", outcome, raw)
	}
	if after, outcome := r.appendLine(nil, good, ""); outcome != "document" || string(after) != string(before) {
		t.Errorf("%s after the truncated file: outcome %s, line differs from before: %v", good, outcome, string(after) != string(before))
	}
}

// TestAppendDocLineMatchesEncodingJSON: the hand-written line gives the
// bytes json.Encoder (HTML escaping off) gives, for every field present or
// omitted and every kind of byte, each byte value at each place of the
// fast path's 16-byte step.
func TestAppendDocLineMatchesEncodingJSON(t *testing.T) {
	docs := []string{
		"",
		"<contacts-and-distances-v2> <begin_sequence> M K T\n<end>",
		"quote \" backslash \\ tab \t cr \r nl \n & < >",
		"control \x01 \x1f del \x7f",
		"non-ASCII é 😀 then ASCII \" after",
		"invalid UTF-8 \xff\xfe then \\u003c literal",
		"line sep \u2028 para sep \u2029",
	}
	for c := range 256 {
		for off := range 18 {
			b := []byte("<abc> <defgh> <ij> <k>")
			b[off] = byte(c)
			docs = append(docs, string(b))
		}
	}
	// Two bytes of the word test's edge values at every pair of places.
	edges := []byte{0x00, 0x1f, 0x20, 0x21, '"', 0x23, 0x5b, '\\', 0x5d, 0x7f, 0x80, 0xa2, 0xff}
	for _, c := range edges {
		for _, d := range edges {
			for i := range 16 {
				for j := i + 1; j < 17; j++ {
					b := []byte("<abc> <defgh> <ij> <k>")
					b[i], b[j] = c, d
					docs = append(docs, string(b))
				}
			}
		}
	}
	lines := []docLine{
		{File: "f.cif", Outcome: "error", Error: `f.cif: open f.cif: "no" such file`},
		{File: "dir/é \u2028 \xff.cif", EntryID: "AF-<X>-F1", Outcome: "filtered", Reason: "too_short"},
	}
	for _, doc := range docs {
		lines = append(lines, docLine{File: "f.cif", EntryID: "E", Outcome: "document", NumTokens: 3, SHA1: "abc", Document: doc})
	}
	for _, line := range lines {
		var want strings.Builder
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
		if got := appendDocLine([]byte("prefix"), line); string(got) != "prefix"+want.String() {
			t.Errorf("appendDocLine(%+v) = %q, want %q", line, got, want.String())
		}
	}
}

// BenchmarkAppendJSONString escapes a document-like string (plain ASCII).
func BenchmarkAppendJSONString(b *testing.B) {
	doc := strings.Repeat("<contacts-and-distances-v2> <begin_sequence> <MET> <GLU> <p12> <d4.5> ", 800)
	var dst []byte
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		dst = appendJSONString(dst[:0], doc)
	}
}
