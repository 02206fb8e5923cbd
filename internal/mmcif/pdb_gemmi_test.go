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
	"github.com/foldcorpus/foldcorpus/internal/structure"
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

// TestCorpusAsPDBAgreesWithGemmi writes every corpus file in PDB format
// with gemmi (read_structure + write_pdb, at test time, into a temporary
// folder) and reads each copy with both readers: the PDB format of real
// AFDB and PDB entries (multi-chain, NMR models, altlocs, insertion codes,
// negative numbers, MSE, nucleic acids, waters and ligands after TER).
func TestCorpusAsPDBAgreesWithGemmi(t *testing.T) {
	g := gemmitest.New(t)
	var srcs []string
	for _, cat := range []string{"pdb", "edge"} {
		srcs = append(srcs, testcorpus.Files(t, cat)...)
	}
	// AFDB files are alike (one chain, no TER subtleties): every fourth
	// keeps the test short; FOLDCORPUS_PDB_ALL=1 takes them all
	for i, p := range testcorpus.Files(t, "afdb") {
		if i%4 == 0 || os.Getenv("FOLDCORPUS_PDB_ALL") == "1" {
			srcs = append(srcs, p)
		}
	}
	outs, err := g.WritePDB(srcs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range outs {
		if p != "" {
			paths = append(paths, p)
		}
	}
	if len(paths) < len(srcs)-5 {
		t.Fatalf("gemmi wrote only %d of %d corpus files as PDB", len(paths), len(srcs))
	}
	rs, err := g.Read(paths)
	if err != nil {
		t.Fatal(err)
	}
	atoms := 0
	for i, p := range paths {
		st, err := mmcif.ReadFile(p)
		switch {
		case err != nil && rs[i].Error != "":
			continue
		case err != nil:
			t.Errorf("%s: %v (gemmi reads it)", p, err)
			continue
		}
		if d := gemmitest.Diff(rs[i], gemmitest.Summarize(p, st)); len(d) > 0 {
			t.Errorf("%s disagrees with gemmi:\n%s", filepath.Base(p), strings.Join(d, "\n"))
		}
		atoms += countAtoms(rs[i])
	}
	t.Logf("%d of %d corpus files written as PDB by gemmi, %d atoms, read as gemmi reads them", len(paths), len(srcs), atoms)
}

// BenchmarkReadIntoAFDBAsPDB reads PDB-format copies of the afdb/ files
// (written by gemmi at the start) into one reused structure; MB/s is over
// the copies. BenchmarkReadIntoAFDB is the same on the mmCIF originals.
func BenchmarkReadIntoAFDBAsPDB(b *testing.B) {
	g := gemmitest.New(b)
	paths, err := g.WritePDB(testcorpus.Files(b, "afdb"), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var files [][]byte
	var total int64
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files, total = append(files, data), total+int64(len(data))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	var st structure.Structure
	for b.Loop() {
		for _, d := range files {
			if err := mmcif.ReadInto(&st, d); err != nil {
				b.Fatal(err)
			}
		}
	}
}
