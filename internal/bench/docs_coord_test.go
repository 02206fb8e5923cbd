package bench

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestMarinFoldCoordReference runs the coordinate formats' side-by-side
// script over a stand-in checkout: every file its own record's degrees,
// the filtered file and the record-less one counted as no document, the
// figures parsed and one wrong sha1 of ours counted as a difference.
func TestMarinFoldCoordReference(t *testing.T) {
	py := testcorpus.Tool(t, python3, "the coordinate formats' side-by-side baseline runs MarinFold's generator in it")
	dir := t.TempDir()
	if err := WriteMarinFoldStandIn(filepath.Join(dir, "mf")); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rec := func(file, resnames string, degrees string) string {
		return `{"file": "afdb/` + file + `", "record": {"residue_resname": [` + resnames + `], "residue_resnum": [1, 2], "residue_chain": ["A", "A"],` +
			` "contact_seq_i": [0], "contact_seq_j": [1], "contact_degree": [` + degrees + `]}}` + "\n"
	}
	write(filepath.Join(dir, "records.jsonl"), rec("a.cif", `"ALA", "GLY"`, "0.25")+rec("b.cif", `"TRP", "LYS"`, "1.5")+
		rec("f.cif", `"ALA", "ALA"`, "1")+`{"file": "afdb/n.cif", "record": null}`+"\n")
	files := map[string]string{"a.cif": "alpha", "b.cif": "beta", "f.cif": "filtered", "n.cif": "none"}
	var args []string
	for _, name := range []string{"a.cif", "b.cif", "f.cif", "n.cif"} {
		p := filepath.Join(dir, "afdb", name)
		write(p, files[name]+"\n")
		args = append(args, p)
	}
	hash := func(s string) string { h := sha1.Sum([]byte(s)); return hex.EncodeToString(h[:]) }
	ours := []string{hash("alpha|ALAGLY|0.25|8192"), hash("beta|TRPLYS|1.5|8192"), "", ""}
	run := func(ours []string) sideBySide {
		t.Helper()
		a := append([]string{filepath.Join(dir, "mf"), "crops", filepath.Join(dir, "records.jsonl"), "2"}, args...)
		s, err := runPythonBaseline(context.Background(), dir, "marinfold_coord_reference.py", marinfoldCoordReference, a, ours, "stand-in")
		if err != nil {
			t.Fatalf("%s: %v", py, err)
		}
		return s
	}
	s := run(ours)
	if s.identical != 2 || s.compared != 2 {
		t.Errorf("identical %d of %d, want 2 of 2 (the filtered and record-less files without a document)", s.identical, s.compared)
	}
	if s.perDoc <= 0 || s.read <= 0 || s.gen <= 0 || !strings.Contains(s.what, "2 reps") || !strings.Contains(s.what, "Python 3") {
		t.Errorf("figures not parsed: %+v", s)
	}
	ours[1] = hash("beta|TRPLYS|1.5|8191")
	if s := run(ours); s.identical != 1 || s.compared != 2 {
		t.Errorf("with one of ours wrong: identical %d of %d, want 1 of 2", s.identical, s.compared)
	}
}
