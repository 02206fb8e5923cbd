package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestCLIConfind: `foldcorpus confind` prints pyconfind's snapshots byte
// for byte, and --record MarinFold's records (or its error) per file.
func TestCLIConfind(t *testing.T) {
	dir := testcorpus.Dir(t)
	lib := filepath.Join(dir, "golden", "confind-mini-rotlib")
	snaps := filepath.Join(dir, "golden", "confind-snapshots")
	for _, name := range []string{"example0000.cif", "example0002.cif", "example0007.cif", "1CRN.pdb", "1UBQ.pdb", "1EJG.pdb"} {
		want, err := os.ReadFile(filepath.Join(snaps, strings.TrimSuffix(name, filepath.Ext(name))+".mini.cont"))
		if err != nil {
			t.Fatal(err)
		}
		out, stderr, code := runCLI(t, "confind", "--rotlib", lib, filepath.Join(snaps, name))
		if code != 0 || out != string(want) {
			t.Errorf("confind %s: exit %d, stderr %q, output equal to the snapshot: %v", name, code, stderr, out == string(want))
		}
	}
	out, _, code := runCLI(t, "confind", "--record", "--rotlib", lib, filepath.Join(dir, "pdb", "1crn.cif"), filepath.Join(dir, "pdb", "4hhb.cif"))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 1 || len(lines) != 2 {
		t.Fatalf("confind --record: exit %d, %d lines, want 1 and 2", code, len(lines))
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec["entry_id"] != "1CRN" || rec["num_contacts"] != float64(22) || !strings.HasSuffix(rec["file"].(string), "1crn.cif") {
		t.Errorf("record line %q (%v)", lines[0], err)
	}
	if !strings.Contains(lines[1], `"error":"ValueError: `) || !strings.Contains(lines[1], "found 4 protein chains (['A', 'B', 'C', 'D'])") {
		t.Errorf("error line %q", lines[1])
	}
}

// TestCLIConfindCompact: `confind --compact` writes DIR/rotlib.fcbin, the
// snapshots come out the same from it, and a stale one is refused naming it.
func TestCLIConfindCompact(t *testing.T) {
	dir := testcorpus.Dir(t)
	snaps := filepath.Join(dir, "golden", "confind-snapshots")
	lib := t.TempDir()
	for _, n := range []string{"EBL.out", "BEBL.out"} {
		b, err := os.ReadFile(filepath.Join(dir, "golden", "confind-mini-rotlib", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lib, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := runCLI(t, "confind", "--compact", "--rotlib", lib, filepath.Join(snaps, "1CRN.pdb")); code != 2 {
		t.Errorf("confind --compact with a FILE: exit %d (%q), want 2", code, stderr)
	}
	out, stderr, code := runCLI(t, "confind", "--compact", "--rotlib", lib)
	compact := filepath.Join(lib, "rotlib.fcbin")
	if fi, err := os.Stat(compact); code != 0 || err != nil || !strings.HasPrefix(out, compact+": ") {
		t.Fatalf("confind --compact: exit %d, %q, stderr %q, %v %v", code, out, stderr, fi, err)
	}
	want, err := os.ReadFile(filepath.Join(snaps, "1CRN.mini.cont"))
	if err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := runCLI(t, "confind", "--rotlib", lib, filepath.Join(snaps, "1CRN.pdb")); code != 0 || out != string(want) {
		t.Errorf("confind with rotlib.fcbin: exit %d, stderr %q, output equal to the snapshot: %v", code, stderr, out == string(want))
	}
	f, err := os.OpenFile(filepath.Join(lib, "BEBL.out"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("# a comment\n")
	f.Close()
	if out, stderr, code := runCLI(t, "confind", "--rotlib", lib, filepath.Join(snaps, "1CRN.pdb")); code == 0 || out != "" || !strings.Contains(stderr, compact+" was not made from") {
		t.Errorf("confind with a stale rotlib.fcbin: exit %d, %d bytes out, stderr %q", code, len(out), stderr)
	}
}
