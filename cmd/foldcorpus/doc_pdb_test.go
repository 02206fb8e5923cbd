package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus/pdbgolden"
)

// TestCLIDocPDBUnits: `doc --format contacts-v1 --opt units=chains,assembly1
// --opt curation=af3 ...` previews a PDB entry's documents (issue 53: a
// user could not preview a multimer): one line per document, monomers and
// the multimer, each exp222's (entry id, subset, sha1), the header fields
// taken from the file's own header scan; an entry with no document is one
// filtered line.
func TestCLIDocPDBUnits(t *testing.T) {
	dir := testcorpus.Dir(t)
	if !confind.ExactAtan2 {
		t.Skip("contacts-v1 rotlib= needs the cgo build (confind.ExactAtan2)")
	}
	set := pdbgolden.Sets(dir)[0]
	lines, err := pdbgolden.Read(set.Path())
	if err != nil {
		t.Fatal(err)
	}
	type doc struct{ id, subset, sha1 string }
	var want []doc
	var files []string
	for _, g := range lines {
		if !g.Selected() || len(files) == 6 {
			continue
		}
		files = append(files, filepath.Join(dir, g.File))
		for i := range g.Documents {
			want = append(want, doc{g.DocumentString(i, "entry_id"), g.DocumentString(i, "subset"), g.DocumentString(i, "sha1")})
		}
		if len(g.Documents) == 0 {
			want = append(want, doc{"", "", ""})
		}
	}
	args := []string{"doc", "--format", "contacts-v1", "--opt", "rotlib=" + filepath.Join(dir, "golden", "confind-mini-rotlib"),
		"--opt", "units=chains,assembly1", "--opt", "curation=af3", "--opt", "max_chains=60",
		"--opt", "clusters=" + set.Clusters()}
	stdout, stderr, code := runCLI(t, append(args, files...)...)
	if code != 0 {
		t.Fatalf("doc with units: exit %d\n%s", code, stderr)
	}
	out := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(out) != len(want) {
		t.Fatalf("%d lines for %d golden documents of %d files:\n%s", len(out), len(want), len(files), stdout)
	}
	subsets := map[string]int{}
	for i, l := range out {
		var d docLine
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		w := want[i]
		if w.id == "" {
			if d.Outcome != "filtered" {
				t.Errorf("line %d: %s %s, want a filtered line (exp222 wrote no document)", i, d.EntryID, d.Outcome)
			}
			continue
		}
		if d.EntryID != w.id || d.Subset != w.subset || d.SHA1 != w.sha1 || d.Outcome != "document" {
			t.Errorf("line %d: %s %s %s %s, want exp222's %s %s %s", i, d.EntryID, d.Subset, d.Outcome, d.SHA1, w.id, w.subset, w.sha1)
		}
		subsets[d.Subset]++
	}
	if subsets["monomer"] == 0 || subsets["multimer"] == 0 {
		t.Errorf("documents by subset %v: want both", subsets)
	}
}
