package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats"
	"github.com/foldcorpus/foldcorpus/internal/formats/cadv2"
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
	f, err := formats.New(cadv2.Name, map[string]string{"residue_plddt_min": "70"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ file, want string }{
		{"afdb/AF-P04637-F1-model_v4.cif", "document"},
		{"edge/pymmcif_1bna-errors.cif", "error"},
		{"edge/ciftools_0emp.cif", "error"},
	}
	for _, tt := range tests {
		line := docFile(f, filepath.Join(dir, tt.file), "")
		g := golden[tt.file]
		if line.Outcome != tt.want || g["outcome"] != tt.want {
			t.Errorf("%s: outcome %s (golden %v), want %s", tt.file, line.Outcome, g["outcome"], tt.want)
			continue
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
		if tt.want != "document" {
			if line.Error == "" {
				t.Errorf("%s: error outcome without a message", tt.file)
			}
			continue
		}
		if line.SHA1 != g["sha1"] || float64(line.NumTokens) != g["num_tokens"].(float64) || line.EntryID != g["entry_id"] {
			t.Errorf("%s: sha1 %s, %d tokens, entry %s; golden %v, %v, %v", tt.file, line.SHA1, line.NumTokens, line.EntryID,
				g["sha1"], g["num_tokens"], g["entry_id"])
		}
		if !strings.Contains(b.String(), `"document":"<contacts-and-distances-v2> <begin_sequence>`) {
			t.Errorf("%s: JSON line does not carry the document verbatim: %.120s", tt.file, b.String())
		}
	}
}

// TestAppendDocLineMatchesEncodingJSON: the hand-escaped document gives the
// bytes json.Encoder (HTML escaping off) gives, for every kind of byte.
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
	for _, doc := range docs {
		line := docLine{File: "f.cif", EntryID: "E", Outcome: "document", NumTokens: 3, SHA1: "abc", Document: doc}
		var want strings.Builder
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(line); err != nil {
			t.Fatal(err)
		}
		got, err := appendDocLine([]byte("prefix"), line)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "prefix"+want.String() {
			t.Errorf("appendDocLine(%q) = %s, want %s", doc, got, want.String())
		}
	}
}
