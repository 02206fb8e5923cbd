package mmcif_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
)

// TestPDBFastPathMatchesGeneral reads PDB-format files with the reader's
// fast path and with its general code only (every line as gemmi's reader
// reads it, field by field) and requires the same structures and errors:
// pyconfind's PDB inputs, generated files (gemmitest.GeneratePDB), cuts of
// each at line ends, and copies with edits where the fast path must see
// that a line is not in its form and hand it to the general code: in the
// number, name, element, charge and residue columns of atom lines (signs,
// blanks, dots, exponents, tabs, carriage returns, letters), lines split,
// joined, shortened or lengthened, short MODEL and ANISOU records (whose
// fields gemmi reads from earlier lines).
func TestPDBFastPathMatchesGeneral(t *testing.T) {
	var files [][]byte
	var names []string
	for _, p := range snapshotPDBs(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files, names = append(files, data), append(names, p)
	}
	n := 400
	if testing.Short() {
		n = 60
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		files = append(files, gemmitest.GeneratePDB(rand.New(rand.NewPCG(seed, 16))))
		names = append(names, fmt.Sprintf("generated seed %d", seed))
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i, data := range files {
		mmcif.CheckFastMatchesGeneral(t, names[i], data)
		for k := 1; k < 4; k++ {
			cut := len(data) * k / 4
			for cut < len(data) && data[cut] != '\n' {
				cut++
			}
			mmcif.CheckFastMatchesGeneral(t, fmt.Sprintf("%s[:%d]", names[i], cut), data[:cut])
		}
		edits := 8
		if i < 3 {
			edits = 200 // the real files: more edits each
		}
		for k := 0; k < edits; k++ {
			mmcif.CheckFastMatchesGeneral(t, fmt.Sprintf("%s (edit %d)", names[i], k), editPDB(r, data))
		}
	}
}

// editPDB returns a copy of data with one to three random edits, most of
// them in an ATOM or HETATM line's fixed columns.
func editPDB(r *rand.Rand, data []byte) []byte {
	out := bytes.Clone(data)
	var atoms []int // offsets of atom lines
	for pos := 0; pos < len(out); {
		if bytes.HasPrefix(out[pos:], []byte("ATOM")) || bytes.HasPrefix(out[pos:], []byte("HETATM")) {
			atoms = append(atoms, pos)
		}
		k := bytes.IndexByte(out[pos:], '\n')
		if k < 0 {
			break
		}
		pos += k + 1
	}
	if len(atoms) == 0 || len(out) == 0 {
		return out
	}
	bytesIn := []string{" ", "-", "+", ".", "0", "9", "5", "e", "E", "\t", "\r", "x", "A", "*", "\x00", "\xc3"}
	for range 1 + r.IntN(3) {
		line := atoms[r.IntN(len(atoms))]
		if line >= len(out) {
			continue
		}
		// a column: mostly the numbers (31-66), else anywhere in 1-80
		col := 30 + r.IntN(36)
		if r.IntN(3) == 0 {
			col = r.IntN(80)
		}
		pos := min(line+col, len(out)-1)
		switch r.IntN(8) {
		case 0: // insert a byte: the columns after it shift
			out = append(out[:pos:pos], append([]byte(bytesIn[r.IntN(len(bytesIn))]), out[pos:]...)...)
		case 1: // delete a byte
			out = append(out[:pos:pos], out[pos+1:]...)
		case 2: // split the line here
			out = append(out[:pos:pos], append([]byte("\n"), out[pos:]...)...)
		case 3: // join it with the next line
			if k := bytes.IndexByte(out[line:], '\n'); k >= 0 {
				out = append(out[:line+k:line+k], out[line+k+1:]...)
			}
		case 4: // a short MODEL or ANISOU record before it
			rec := []string{"MODEL\n", "MODEL     \n", "ANISOU\n", "ANISOU  1\n", "ENDMDL\n", "TER\n", "END\n"}[r.IntN(7)]
			out = append(out[:line:line], append([]byte(rec), out[line:]...)...)
		default: // replace a byte
			out[pos] = bytesIn[r.IntN(len(bytesIn))][0]
		}
	}
	return out
}
