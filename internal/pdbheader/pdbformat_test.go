package pdbheader

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// pdbOracle runs testdata/gemmi_pdb_header.py over lines (paths, or
// "convert IN OUT") and returns its answers in order.
func pdbOracle(t *testing.T, lines []string) []string {
	t.Helper()
	cmd := exec.Command(gemmitest.Python, filepath.Join("testdata", "gemmi_pdb_header.py"))
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gemmi_pdb_header.py: %v: %s", err, stderr.Bytes())
	}
	var answers []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		answers = append(answers, sc.Text())
	}
	if len(answers) != len(lines) {
		t.Fatalf("gemmi_pdb_header.py answered %d of %d lines: %s", len(answers), len(lines), stderr.Bytes())
	}
	return answers
}

// ubqAtoms is 1UBQ's chain A coordinates renamed to chain c.
func ubqAtoms(t *testing.T, dir, c string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "golden", "confind-snapshots", "1UBQ.pdb"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "ATOM") && len(l) > 22 && l[17:20] != "HOH" {
			b.WriteString(l[:21] + c + l[22:] + "\n")
		}
	}
	return b.String() + "TER\n"
}

// edgePDBs are header records gemmi reads in unusual ways (HEADER dates,
// EXPDTA continuations, REMARK 2/3 resolution rules, REMARK 350 layouts,
// SEQRES of equal and unequal sequences, of a chain without coordinates)
// over 1UBQ's coordinates as chains A-D.
func edgePDBs(t *testing.T, dir, tmp string) []string {
	t.Helper()
	ubq := "MET GLN ILE PHE VAL LYS THR LEU THR GLY LYS THR ILE"
	seqres := func(c, res string) string { return fmt.Sprintf("SEQRES   1 %s   13  %s\n", c, res) }
	biomt := func(op int, short bool) string {
		s := ""
		for r := 1; r <= 3; r++ {
			s += fmt.Sprintf("REMARK 350   BIOMT%d %3d  1.000000  0.000000  0.000000        0.00000\n", r, op)
		}
		if short {
			s += fmt.Sprintf("REMARK 350   BIOMT3 %3d  1.0 0 0 0\n", op)
		}
		return s
	}
	header := func(date string) string { return "HEADER    TEST" + strings.Repeat(" ", 36) + date + "   1TST\n" }
	coords := ubqAtoms(t, dir, "A") + ubqAtoms(t, dir, "B") + ubqAtoms(t, dir, "C")
	seqs := seqres("A", ubq) + seqres("B", ubq) + seqres("C", "ALA "+ubq[4:]) + seqres("D", ubq)
	cases := []string{
		header("02-JAN-87") + "EXPDTA    X-RAY DIFFRACTION; NEUTRON\nEXPDTA   2 DIFFRACTION\n" +
			"REMARK   2 RESOLUTION.    1.80 ANGSTROMS.\nREMARK   3   DATA USED IN REFINEMENT.\nREMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) : 1.50\n" +
			"REMARK 350 BIOMOLECULE: 1\nREMARK 350 APPLY THE FOLLOWING TO CHAINS: A, B,\nREMARK 350                    AND CHAINS: C, D\n" + biomt(1, false) + biomt(2, true) +
			"REMARK 350 APPLY THE FOLLOWING TO CHAINS: C\n" + biomt(3, false) + "REMARK 350 BIOMOLECULE: 2\nREMARK 350 APPLY THE FOLLOWING TO CHAINS: A\n" + biomt(1, false),
		header("02-DEC-67") + "EXPDTA    SOLUTION NMR ;;  ; SOLUTION NMR\nREMARK   2 RESOLUTION. NOT APPLICABLE.\n" +
			"REMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) : 2.10\nREMARK   3   DATA USED IN REFINEMENT.\nREMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) : 2.50\n" +
			"REMARK 350 BIOMOLECULE:  1 \nREMARK 350 APPLY THE FOLLOWING TO CHAINS: A,B ,C\n" + biomt(1, false) +
			"REMARK 350 IN ADDITION APPLY THE FOLLOWING TO CHAINS: E\n" + biomt(2, false) + "REMARK 350    AND CHAINS: B\n",
		header("02-jan-7 ") + "EXPDTA  X RAY \nREMARK   3   DATA USED IN REFINEMENT.\nREMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) : NULL\n" +
			"REMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) : 3.05\nREMARK   2 RESOLUTION.    2.20 ANGSTROMS.\n" +
			"REMARK 350 APPLY THE FOLLOWING TO CHAINS: A\n" + biomt(1, false) + "REMARK 350 BIOMOLECULE: 1\n" + biomt(1, false) +
			"REMARK 350 APPLY THE FOLLOWING TO CHAINS: A\nREMARK 350 BIOMOLECULE: 1\nREMARK 350 APPLY THE FOLLOWING TO CHAINS: B, C\n" + biomt(1, false) + biomt(2, false),
		header("02-B  -99") + "REMARK   2 RESOLUTION.    0.00 ANGSTROMS.\nREMARK   3   DATA USED IN REFINEMENT.\nREMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) :  4.0\n",
		header("02-N01-05") + header("         ") + "EXPDTA    ELECTRON MICROSCOPY\n" + "REMARK   2 RESOLUTION.    3.10 ANGSTROMS.\n" +
			"REMARK   2 RESOLUTION.    3.20 ANGSTROMS.\nREMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) : 1.1\n",
	}
	var paths []string
	for i, c := range cases {
		p := filepath.Join(tmp, fmt.Sprintf("edge%d.pdb", i))
		if err := os.WriteFile(p, []byte(c+seqs+coords+"END\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestScanPDBFormatAsGemmi scans PDB-format files (pyconfind's snapshots,
// the 43 golden mmCIF entries written as PDB format by gemmi, and edge
// cases; each plain and gzipped) and compares every column but
// resolution_source with what gemmi 0.5.7's reading of the same file
// gives (testdata/gemmi_pdb_header.py: st.info, st.resolution,
// setup_entities' entities, st.assemblies).
func TestScanPDBFormatAsGemmi(t *testing.T) {
	gemmitest.New(t)
	dir, lines := goldenLines(t)
	tmp := t.TempDir()
	var convert []string
	for _, g := range lines {
		if strings.HasPrefix(g.File, "pdb/") {
			convert = append(convert, "convert "+filepath.Join(dir, g.File)+" "+filepath.Join(tmp, strings.TrimSuffix(filepath.Base(g.File), ".cif")+".pdb"))
		}
	}
	var paths []string
	for i, a := range pdbOracle(t, convert) {
		if p, ok := strings.CutPrefix(a, "converted "); ok {
			paths = append(paths, p)
		} else {
			t.Logf("%s: gemmi cannot write it as PDB format: %s", convert[i], a)
		}
	}
	if len(paths) < 30 {
		t.Fatalf("only %d of %d golden entries written as PDB format", len(paths), len(convert))
	}
	for _, n := range []string{"1CRN.pdb", "1UBQ.pdb", "1EJG.pdb"} {
		paths = append(paths, filepath.Join(dir, "golden", "confind-snapshots", n))
	}
	paths = append(paths, edgePDBs(t, dir, tmp)...)
	want := pdbOracle(t, paths)
	checked := 0
	for i, p := range paths {
		var w map[string]json.RawMessage
		if err := json.Unmarshal([]byte(want[i]), &w); err != nil {
			t.Fatalf("%s: %v: %s", p, err, want[i])
		}
		if msg, ok := w["gemmi_error"]; ok {
			t.Errorf("%s: gemmi cannot read it: %s", p, msg)
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		for _, in := range [][]byte{data, z.Bytes()} {
			got := asJSON(t, Scan(in, p))
			if string(got["error"]) != "null" {
				t.Errorf("%s: scan error %s", p, got["error"])
				continue
			}
			for col, wv := range w {
				if canon(t, got[col]) != canon(t, wv) {
					t.Errorf("%s: %s = %s, gemmi's reading gives %s", filepath.Base(p), col, got[col], wv)
				}
			}
		}
		checked++
	}
	t.Logf("%d PDB-format files (%d golden entries written by gemmi, 3 snapshots, 5 edge cases) compared with gemmi, plain and gzipped", checked, len(paths)-8)
}

// TestScanPDBFormatRules checks what gemmi's reading cannot: the
// resolution source, and the documented differences (a chain with
// coordinates but no SEQRES has no entity; release_date is null).
func TestScanPDBFormatRules(t *testing.T) {
	dir := testcorpus.Dir(t)
	atoms := ubqAtoms(t, dir, "A") + ubqAtoms(t, dir, "B")
	seq := "SEQRES   1 A    3  MET GLN ILE\n"
	for _, c := range []struct {
		head, src string
		res       float64
	}{
		{"REMARK   2 RESOLUTION.    1.80 ANGSTROMS.\n", "remark_2", 1.8},
		{"REMARK   3   DATA USED IN REFINEMENT.\nREMARK   3   RESOLUTION RANGE HIGH (ANGSTROMS) : 2.5\n", "remark_3", 2.5},
		{"REMARK   2 RESOLUTION. NOT APPLICABLE.\n", "", 0},
	} {
		e := Scan([]byte(c.head+seq+atoms+"END\n"), "x/1ABC.pdb")
		if e.Error != nil {
			t.Fatalf("%q: %s", c.head, *e.Error)
		}
		switch {
		case c.src == "" && (e.Resolution != nil || e.ResolutionSource != nil):
			t.Errorf("%q: resolution %v from %v, want none", c.head, *e.Resolution, *e.ResolutionSource)
		case c.src != "" && (e.Resolution == nil || *e.Resolution != c.res || *e.ResolutionSource != c.src):
			t.Errorf("%q: resolution %v from %v, want %v from %s", c.head, e.Resolution, e.ResolutionSource, c.res, c.src)
		}
		if e.PDBID != "1abc" || e.ReleaseDate != nil || e.NProteinEntities != 1 || e.NProteinAsymChains != 1 || e.ProteinStrandIDs[0] != "A" {
			t.Errorf("%q: %+v; want 1abc, no release date, one protein entity of chain A (B has no SEQRES)", c.head, e)
		}
	}
	for _, bad := range []string{"HEADER    X\x00\n", "not a structure\n"} {
		if e := Scan([]byte(bad), "bad.pdb"); e.Error == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
