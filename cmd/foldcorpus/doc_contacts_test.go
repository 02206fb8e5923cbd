package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestCLIDocContactsFromStructure: `doc --format contacts-v1 --opt
// rotlib=DIR FILE` previews the document run writes for that combination:
// the reference's (MarinFold's, confind-mini.jsonl) byte for byte; without
// rotlib the refusal says what contacts-v1 reads and how to compute it.
func TestCLIDocContactsFromStructure(t *testing.T) {
	dir := testcorpus.Dir(t)
	if !confind.ExactAtan2 {
		t.Skip("contacts-v1 rotlib= needs the cgo build (confind.ExactAtan2)")
	}
	lib := filepath.Join(dir, "golden", "confind-mini-rotlib")
	f, err := os.Open(filepath.Join(dir, "golden", "confind-mini.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]miniDoc{}
	var files []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() && len(files) < 3 {
		var g miniDoc
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if g.Outcome != "document" {
			continue
		}
		p := filepath.Join(dir, g.File)
		want[p] = g
		files = append(files, p)
	}
	if len(files) != 3 {
		t.Fatalf("confind-mini.jsonl: %d documents, want 3", len(files))
	}
	stdout, stderr, code := runCLI(t, append([]string{"doc", "--format", "contacts-v1", "--opt", "rotlib=" + lib}, files...)...)
	if code != 0 {
		t.Fatalf("doc --format contacts-v1 --opt rotlib=: exit %d\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d lines for %d files", len(lines), len(files))
	}
	for i, l := range lines {
		var d docLine
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		g := want[files[i]]
		if d.Outcome != "document" || d.EntryID != g.EntryID || d.SHA1 != g.SHA1 || d.Document != g.Document {
			t.Errorf("%s: outcome %s, entry_id %s, sha1 %s; the reference's: document, %s, %s", g.File, d.Outcome, d.EntryID, d.SHA1, g.EntryID, g.SHA1)
		}
	}
	_, stderr, code = runCLI(t, "doc", "--format", "contacts-v1", files[0])
	if code != 2 || !strings.Contains(stderr, "analysis records") || !strings.Contains(stderr, "--opt rotlib=DIR") {
		t.Errorf("doc --format contacts-v1 without rotlib: exit %d, want 2 saying it reads analysis records and how to use --opt rotlib=DIR:\n%s", code, stderr)
	}
}

type miniDoc struct {
	File     string `json:"file"`
	EntryID  string `json:"entry_id"`
	Outcome  string `json:"outcome"`
	Document string `json:"document"`
	SHA1     string `json:"sha1"`
}
