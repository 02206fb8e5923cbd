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
