package mmcif_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// snapshotPDBs are pyconfind's PDB-format snapshot inputs.
func snapshotPDBs(t *testing.T) []string {
	dir := filepath.Join(testcorpus.Dir(t), "golden", "confind-snapshots")
	var ps []string
	for _, n := range []string{"1CRN.pdb", "1UBQ.pdb", "1EJG.pdb"} {
		ps = append(ps, filepath.Join(dir, n))
	}
	return ps
}

// TestPDBSnapshotsAgreeWithGemmi reads pyconfind's PDB-format inputs
// (plain, gzip as .pdb.gz, and the same bytes under a name gemmi would not
// take for PDB) and compares every model, chain, residue (name, number,
// insertion code, subchain, entity type) and atom (name, altloc, element,
// coordinates, occupancy, B, in order) with gemmi 0.5.7's reading.
func TestPDBSnapshotsAgreeWithGemmi(t *testing.T) {
	g := gemmitest.New(t)
	tmp := t.TempDir()
	var paths []string
	for _, p := range snapshotPDBs(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		gz := filepath.Join(tmp, filepath.Base(p)+".gz")
		if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p, gz)
	}
	rs, err := g.Read(paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		if rs[i].Error != "" {
			t.Fatalf("gemmi cannot read %s: %s", p, rs[i].Error)
		}
		st, err := mmcif.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if d := gemmitest.Diff(rs[i], gemmitest.Summarize(p, st)); len(d) > 0 {
			t.Errorf("%s disagrees with gemmi:\n%s", p, strings.Join(d, "\n"))
		}
		if n := countAtoms(rs[i]); n < 300 {
			t.Errorf("%s: gemmi reads only %d atoms", p, n)
		}
		// the same bytes under another name: detected by content
		other := filepath.Join(tmp, "copy.txt")
		data, _ := os.ReadFile(p)
		os.WriteFile(other, data, 0o644)
		st2, err := mmcif.ReadFile(other)
		if err != nil {
			t.Errorf("%s as %s: %v", p, other, err)
			continue
		}
		r := rs[i]
		r.Name = "copy.txt"
		if d := gemmitest.Diff(r, gemmitest.Summarize(other, st2)); len(d) > 0 {
			t.Errorf("%s as copy.txt disagrees with gemmi:\n%s", p, strings.Join(d, "\n"))
		}
	}
}

func countAtoms(r gemmitest.Reading) int {
	n := 0
	for _, m := range r.Models {
		for _, c := range m.Chains {
			n += c.NAtoms
		}
	}
	return n
}
