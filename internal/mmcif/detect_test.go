package mmcif

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

func TestDetectFormat(t *testing.T) {
	atom := "ATOM      1  CA  ALA A   1      11.104   6.134  -6.504  1.00  0.00           C\n"
	tests := []struct {
		name, in string
		want     fileFormat
	}{
		{"empty", "", formatCIF},
		{"blank and comment", "  \n# x\n", formatCIF},
		{"mmCIF", "data_x\n_a.b 1\n", formatCIF},
		{"mmCIF after a comment", "# made by x\n\nDATA_x\n", formatCIF},
		{"tag before block (the CIF reader names it)", "_a.b 1\n", formatCIF},
		{"loop first", "loop_\n_a.b\n1\n", formatCIF},
		{"PDB atoms only", atom, formatPDB},
		{"PDB header", "HEADER    PLANT PROTEIN\n" + atom, formatPDB},
		{"ESMFold PARENT line first", "PARENT N/A\n" + atom, formatPDB},
		{"lower-case record", "atom      1  CA  ALA A   1      11.104   6.134  -6.504\n", formatPDB},
		{"hybrid-36 serial glued to ATOM", "ATOMA0000  CA  ALA A   1      11.104   6.134  -6.504\n", formatPDB},
		{"END only", "END\n", formatPDB},
		{"mmJSON", "{\"data_x\": {}}", formatJSON},
		{"FASTA", ">sp|P1|X\nMKVLAAGIVGLLLA\n", formatUnknown},
		{"HTML error page", "<html><body>404</body></html>\n", formatUnknown},
		{"ENDOFFILE is no record", "ENDOFFILE\n", formatUnknown},
	}
	for _, tc := range tests {
		if got := detectFormat([]byte(tc.in)); got != tc.want {
			t.Errorf("detectFormat(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestNeitherFormatIsOneClearError: a file that is neither format is one
// permanent error naming the file, and mmCIF's empty-file error stays.
func TestNeitherFormatIsOneClearError(t *testing.T) {
	dir := t.TempDir()
	for name, in := range map[string]string{"seq.fasta": ">x\nMKV\n", "page.pdb": "<html>404</html>\n", "x.json": "{\"data_x\":{}}"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(in), 0o644)
		_, err := ReadFile(p)
		if err == nil || !errors.Is(err, ErrUnknownFormat) || !errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadFile(%s) = %v, want ErrUnknownFormat, permanent, naming the file", name, err)
		}
	}
	if _, err := Read(nil); !errors.Is(err, ErrNoBlock) {
		t.Errorf("Read(empty) = %v, want ErrNoBlock", err)
	}
}

func TestPDBName(t *testing.T) {
	for in, want := range map[string]string{
		"/a/1CRN.pdb": "1CRN", "x/1crn.pdb.gz": "1crn", "pdb1crn.ent": "pdb1crn.ent", "pdb1crn.ent.gz": "pdb1crn.ent",
		"model.PDB": "model.PDB", "a.pdb.pdb": "a.pdb", ".pdb": ".pdb", `c:\d\e.pdb`: "e",
	} {
		if got := PDBName(in); got != want {
			t.Errorf("PDBName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPDBErrorsNameTheLine: gemmi's refusals of a PDB file (and a NUL byte,
// which gemmi's C strings would cut the line at) are errors naming the line.
func TestPDBErrorsNameTheLine(t *testing.T) {
	atom := "ATOM      1  CA  ALA A   1      11.104   6.134  -6.504  1.00 90.00           C\n"
	for in, want := range map[string]string{
		atom + "ATOM      2  CA  ALA A   2      11.104   6.134\n": "line 2: the line is too short",
		"HEADER\n" + atom + "ANISOU    1  CA  ALA A   1     100    200    300      0      0      0\n" + "ANISOU    1  CA  ALA A   1     100    200    300      0      0      0\n": "line 4: duplicated ANISOU",
		"MODEL        1\n" + atom + "MODEL        2\n":                                     "line 3: MODEL without ENDMDL",
		"MODEL        1\n" + atom + "ENDMDL\nMODEL        1\n" + atom:                      "line 4: duplicate MODEL number: 1",
		atom + "ENDMDL\n" + atom + "ENDMDL\n" + strings.Replace(atom, "ALA A", "ALA B", 1): "",
		"MODEL        2\n" + atom + "ENDMDL\n" + atom:                                      "line 4: ATOM/HETATM between models",
		atom[:78] + "X1\n": "line 1: wrong format for charge",
		"REMARK\ndata_x\n": "line 2: incorrect file format",
		atom + "AT\x00M\n": "line 2: NUL byte",
	} {
		_, err := Read([]byte(in))
		switch {
		case want == "" && err != nil:
			t.Errorf("Read(%q) = %v, want no error", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, derrors.ErrPermanent)):
			t.Errorf("Read(%q) = %v, want a permanent error with %q", in, err, want)
		}
	}
}
