// Package gemmitest reads mmCIF files with gemmi 0.5.7 (Debian's
// python3-gemmi) at test time and compares its reading with foldcorpus's,
// on the values `foldcorpus inspect --json` reports and on the
// contacts-and-distances-v2 outcome. It also generates random structure
// files that stress gemmi's rules (generate.go). It is for tests only.
package gemmitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Python is the interpreter that has python3-gemmi (Debian installs it
// for the system Python only).
const Python = "/usr/bin/python3"

// Chain is one chain of a model as gemmi reads it.
type Chain struct {
	Name      string `json:"name"`
	NResidues int    `json:"n_residues"`
	NPolymer  int    `json:"n_polymer_residues"`
	NAtoms    int    `json:"n_atoms"`
	Sequence  string `json:"sequence"`
	// Sums over the chain's atoms in file order, in float64: B-factors,
	// occupancies, x+y+z. encoding/json cannot hold NaN: gemmi_read.py
	// writes it as NaN, which jsonFloat reads.
	Sums [3]jsonFloat `json:"sums"`
	// Residues: "NAME SEQ[ICODE] SUBCHAIN ENTITYTYPE NATOMS" per residue.
	Residues []string `json:"residues"`
	// LabelSeqs: each residue's label_seq, nil where gemmi has none.
	LabelSeqs []*int `json:"label_seqs"`
	// Atoms: every atom of the chain in order.
	Atoms []Atom `json:"atoms"`
}

// Atom is one atom: name, altloc ("" for none), element (upper case) and
// its values x, y, z, occupancy, B (the float32 ones widened exactly).
type Atom struct {
	Name, AltLoc, Element string
	Values                [5]jsonFloat
}

// UnmarshalJSON reads gemmi_read.py's [name, altloc, element, x, y, z, occ, b].
func (a *Atom) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if len(raw) != 8 {
		return fmt.Errorf("atom %s: want 8 values", b)
	}
	for i, p := range []*string{&a.Name, &a.AltLoc, &a.Element} {
		if err := json.Unmarshal(raw[i], p); err != nil {
			return err
		}
	}
	for i := range a.Values {
		if err := a.Values[i].UnmarshalJSON(raw[3+i]); err != nil {
			return err
		}
	}
	return nil
}

// Model is one model's chains.
type Model struct {
	Name   string  `json:"name"`
	Chains []Chain `json:"chains"`
}

// CADV2 is the contacts-and-distances-v2 outcome of the reference
// generator (residue_plddt_min 70): "error" (with Error), "filtered", or
// "document" (with SHA1 of the document).
type CADV2 struct {
	Outcome   string `json:"outcome"`
	Error     string `json:"error,omitempty"`
	NResidues int    `json:"n_residues,omitempty"`
	SHA1      string `json:"sha1,omitempty"`
}

// Reading is what gemmi (or foldcorpus, Summarize) reads from one file.
type Reading struct {
	File      string       `json:"file"`
	Error     string       `json:"error,omitempty"`
	Name      string       `json:"name"`
	Models    []Model      `json:"models"`
	PLDDTMean *jsonFloat   `json:"plddt_mean"`
	Contacts  [][3]float64 `json:"contacts"`
	CADV2     CADV2        `json:"cadv2"`
	// CADV2First is the outcome with require_single_chain off: the
	// reference generator on model 1's first polymer chain.
	CADV2First CADV2 `json:"cadv2_first_chain"`
}

// dir is this package's folder (for testdata/).
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Gemmi runs the gemmi reader script.
type Gemmi struct {
	script, reference string
}

// New returns the gemmi oracle. When python3-gemmi is missing it skips the
// test with a clear message, or fails it when FOLDCORPUS_REQUIRE_CORPUS=1
// (as CI sets it: .ci/run installs python3-gemmi).
func New(tb testing.TB) *Gemmi {
	tb.Helper()
	out, err := exec.Command(Python, "-c", "import gemmi; print(gemmi.__version__)").CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("gemmi unavailable (%s -c 'import gemmi': %v: %s); install Debian's python3-gemmi", Python, err, bytes.TrimSpace(out))
		if os.Getenv("FOLDCORPUS_REQUIRE_CORPUS") == "1" {
			tb.Fatalf("FOLDCORPUS_REQUIRE_CORPUS=1 but %s", msg)
		}
		tb.Skipf("SKIP: %s; set FOLDCORPUS_REQUIRE_CORPUS=1 to make this a failure", msg)
	}
	if v := strings.TrimSpace(string(out)); v != "0.5.7" {
		tb.Logf("gemmi %s, not 0.5.7: the project follows 0.5.7", v)
	}
	g := &Gemmi{
		script:    filepath.Join(dir(), "testdata", "gemmi_read.py"),
		reference: filepath.Join(dir(), "..", "..", "bench", "cadv2_reference.py"),
	}
	for _, p := range []string{g.script, g.reference} {
		if _, err := os.Stat(p); err != nil {
			tb.Fatal(err)
		}
	}
	return g
}

// Read reads the files with gemmi in one Python process and returns its
// readings in the same order.
func (g *Gemmi) Read(paths []string) ([]Reading, error) {
	cmd := exec.Command(Python, g.script, g.reference)
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", g.script, err, stderr.Bytes())
	}
	var rs []Reading
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r Reading
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("gemmi reading %d: %w", len(rs), err)
		}
		rs = append(rs, r)
	}
	if len(rs) != len(paths) {
		return nil, fmt.Errorf("gemmi read %d of %d files: %s", len(rs), len(paths), stderr.Bytes())
	}
	return rs, nil
}

// toPDB writes a PDB-format copy of each file with gemmi's write_pdb (one
// Python process; options drawn from seed) and returns the copies' paths
// and bytes; files gemmi cannot read or write are left out, and the mmCIF
// files are removed.
func (g *Gemmi) toPDB(paths []string, seed uint64) ([]string, [][]byte, error) {
	r := rand.New(rand.NewPCG(seed, 26))
	var in strings.Builder
	outs := make([]string, len(paths))
	for i, p := range paths {
		outs[i] = strings.TrimSuffix(p, ".cif") + ".pdb"
		flags := ""
		for _, f := range "stinq" {
			if r.IntN(3) > 0 {
				flags += string(f)
			}
		}
		fmt.Fprintf(&in, "%s\t%s\t%s\n", p, outs[i], flags)
	}
	cmd := exec.Command(Python, filepath.Join(dir(), "testdata", "gemmi_write_pdb.py"))
	cmd.Stdin = strings.NewReader(in.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("gemmi_write_pdb.py: %w: %s", err, stderr.Bytes())
	}
	status := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(status) != len(paths) {
		return nil, nil, fmt.Errorf("gemmi_write_pdb.py answered %d of %d files: %s", len(status), len(paths), stderr.Bytes())
	}
	var ps []string
	var datas [][]byte
	for i, st := range status {
		os.Remove(paths[i])
		if st != "ok" {
			continue
		}
		data, err := os.ReadFile(outs[i])
		if err != nil {
			return nil, nil, err
		}
		ps, datas = append(ps, outs[i]), append(datas, data)
	}
	return ps, datas, nil
}

// WritePDB writes a PDB-format copy of each file into dir with gemmi's
// read_structure + write_pdb (default options) and returns the copies'
// paths, "" where gemmi fails. g is not used concurrently.
func (g *Gemmi) WritePDB(paths []string, outDir string) ([]string, error) {
	var in strings.Builder
	outs := make([]string, len(paths))
	for i, p := range paths {
		base := filepath.Base(p)
		outs[i] = filepath.Join(outDir, strings.TrimSuffix(base, filepath.Ext(base))+".pdb")
		fmt.Fprintf(&in, "%s\t%s\ttnq\n", p, outs[i])
	}
	cmd := exec.Command(Python, filepath.Join(dir(), "testdata", "gemmi_write_pdb.py"))
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("gemmi_write_pdb.py: %w", err)
	}
	status := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(status) != len(paths) {
		return nil, fmt.Errorf("gemmi_write_pdb.py answered %d of %d files", len(status), len(paths))
	}
	for i, st := range status {
		if st != "ok" {
			outs[i] = ""
		}
	}
	return outs, nil
}

// jsonFloat is a float64 that also reads Python's json NaN, Infinity and
// -Infinity.
type jsonFloat float64

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "NaN":
		*f = jsonFloat(math.NaN())
	case "Infinity":
		*f = jsonFloat(math.Inf(1))
	case "-Infinity":
		*f = jsonFloat(math.Inf(-1))
	default:
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*f = jsonFloat(v)
	}
	return nil
}
