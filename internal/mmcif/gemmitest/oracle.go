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
