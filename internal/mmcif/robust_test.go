package mmcif

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

const tiny = `data_T
loop_
_atom_site.group_PDB
_atom_site.id
_atom_site.type_symbol
_atom_site.label_atom_id
_atom_site.label_alt_id
_atom_site.label_comp_id
_atom_site.label_asym_id
_atom_site.label_entity_id
_atom_site.label_seq_id
_atom_site.Cartn_x
_atom_site.Cartn_y
_atom_site.Cartn_z
_atom_site.occupancy
_atom_site.B_iso_or_equiv
_atom_site.auth_seq_id
_atom_site.auth_asym_id
_atom_site.pdbx_PDB_model_num
ATOM 1 N N . ALA A 1 1 1.0 2.0 3.0 1.00 50.5 1 A 1
ATOM 2 C CA . ALA A 1 1 2.0 2.0 3.0 1.00 60.25 1 A 1
ATOM 3 C CA . GLY A 1 2 5.0 2.0 3.0 1.00 70 2 A 1
`

func TestBadInputsGiveErrors(t *testing.T) {
	huge := "data_x\n_a.b " + strings.Repeat("x", 8<<20) + "\n"
	tests := []struct {
		name string
		in   string
		want string // substring of the error
	}{
		{"empty", "", "no data_ block"},
		{"only comments", "# nothing\n#\n", "no data_ block"},
		{"binary", "\x00\x01\x02\xff\xfe data", "neither mmCIF nor PDB format"},
		{"binary after data_", "data_x\n\x01\x02", "not allowed"},
		{"truncated loop", tiny[:len(tiny)-20], "wrong number of values"},
		{"unbalanced single quote", "data_x\n_a.b 'abc\n", "unterminated quoted"},
		{"unbalanced double quote", "data_x\n_a.b \"abc def\n_a.c 1\n", "unterminated quoted"},
		{"unterminated text field", "data_x\n_a.b\n;abc\ndef\n", "unterminated text field"},
		{"tag without value", "data_x\n_a.b\n_a.c 1\n", "has no value"},
		{"value without tag", "data_x\n_a.b 1 2\n", "without a tag"},
		{"tag before block", "_a.b 1\n", "before the first data_"},
		{"loop without tags", "data_x\nloop_\n1 2\n", "without tags"},
		{"non-ASCII value", "data_x\n_a.b caf\xc3\xa9\n", "not allowed"},
		{"huge line", huge + "_a.c 'x\n", "unterminated quoted"},
		{"bad gzip", "\x1f\x8b\x08\x00garbage", "gzip"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := Read([]byte(tc.in))
			if err == nil {
				t.Fatalf("no error; read %+v", st)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if !errors.Is(err, derrors.ErrPermanent) {
				t.Errorf("error %v is not ErrPermanent", err)
			}
		})
	}
}

func TestErrorNamesLine(t *testing.T) {
	_, err := Read([]byte("data_x\n_a.b 1\n\n_a.c 'open\n"))
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("want an error naming line 4, got %v", err)
	}
	_, err = ReadFile(filepath.Join(t.TempDir(), "missing.cif"))
	if err == nil || !strings.Contains(err.Error(), "missing.cif") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}

func TestSyntaxCases(t *testing.T) {
	// quoting rules of CIF 1.1: a quote closes only before whitespace.
	in := "data_q\n_x.a 'it's'\n_x.b \"a\"b c\"\n_x.c\n;line1\n;\n_x.d '?'\nloop_ _y.a _y.b 1 'two words' ; 3\n#c\n"
	// the last ';' is not at line start, so it is a plain value
	if _, err := Read([]byte(in)); err != nil {
		t.Fatal(err)
	}
}

func TestTinyAndGzip(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(tiny))
	w.Close()
	for name, in := range map[string][]byte{"plain": []byte(tiny), "gzip": gz.Bytes()} {
		t.Run(name, func(t *testing.T) {
			st, err := Read(in)
			if err != nil {
				t.Fatal(err)
			}
			if st.Name != "T" || len(st.Models) != 1 || len(st.Models[0].Chains) != 1 {
				t.Fatalf("got %+v", st)
			}
			c := st.Models[0].Chains[0]
			if len(c.Residues) != 2 || len(c.Polymer()) != 2 || len(c.Residues[0].Atoms) != 2 {
				t.Fatalf("chain %+v", c)
			}
			a := c.Residues[0].Atoms[1]
			if a.Name != "CA" || a.Element != "C" || a.X != 2.0 || a.B != float32(60.25) || a.Occ != 1 {
				t.Errorf("atom %+v", a)
			}
		})
	}
}

func TestParseFloat(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"1.5", 1.5}, {"-0.125", -0.125}, {"+3", 3}, {"12.", 12}, {".5", 0.5},
		{"1e3", 1000}, {"1.23(4)", 1.23}, {"0.1", 0.1}, {"-12.345", -12.345},
		{"123456789012345678901234", 123456789012345678901234},
		{"0.30000000000000004441", 0.30000000000000004441},
	}
	for _, tc := range tests {
		if got := parseFloat([]byte(tc.in)); got != tc.want {
			t.Errorf("parseFloat(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	// property: the fast path rounds exactly like strconv.ParseFloat
	r := rand.New(rand.NewPCG(7, 7))
	for k := 0; k < 200000; k++ {
		txt := strconv.FormatUint(r.Uint64N(1<<uint(r.IntN(60)+1)), 10)
		if p := r.IntN(len(txt) + 1); p < len(txt) {
			txt = txt[:p] + "." + txt[p:]
		}
		if r.IntN(2) == 0 {
			txt = "-" + txt
		}
		want, err := strconv.ParseFloat(txt, 64)
		if err != nil {
			continue
		}
		if got := parseFloat([]byte(txt)); got != want {
			t.Fatalf("parseFloat(%q) = %v, want %v", txt, got, want)
		}
	}
	for _, bad := range []string{"", "?", ".", "-", "abc", "1.2.3"} {
		if got := parseFloat([]byte(bad)); got == got {
			t.Errorf("parseFloat(%q) = %v, want NaN", bad, got)
		}
	}
}

// TestEdgeFilesNoPanic reads every edge/ file plus truncations of each.
func TestEdgeFilesNoPanic(t *testing.T) {
	for _, p := range testcorpus.Files(t, "edge") {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{len(data), len(data) / 2, len(data) / 3, 100} {
			if cut > len(data) {
				continue
			}
			st, err := Read(data[:cut])
			if err == nil && st == nil {
				t.Fatalf("%s[:%d]: nil structure without error", p, cut)
			}
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(tiny))
	f.Add([]byte("data_x\n_a.b 'q'\nloop_\n_c.d\n;t\n;\n"))
	f.Add([]byte("MODEL        1\nATOM      1  CA  ALA A   1      11.104   6.134  -6.504  1.00 90.00           C\n" +
		"TER\nHETATM    2  O   HOH A   2       1.000   2.000   3.000  1.00 20.00           O\nENDMDL\nEND\n"))
	// Seed with the small corpus files when the corpus is present (the
	// inline seeds above keep the target useful without it).
	for _, cat := range []string{"edge", "afdb", "pdb"} {
		matches, _ := filepath.Glob(filepath.Join(testcorpus.Location(), cat, "*.cif")) // no skip: the inline seeds run without the corpus
		for _, m := range matches {
			if data, err := os.ReadFile(m); err == nil && len(data) < 80<<10 {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastMatchesGeneral(t, "input", data)
		st, err := Read(data)
		if err != nil {
			return
		}
		for mi := range st.Models {
			for ci := range st.Models[mi].Chains {
				c := &st.Models[mi].Chains[ci]
				_ = c.Polymer()
				if m := &st.Models[mi]; m.PrincipalChain() == nil {
					t.Fatal("model with chains has no principal chain")
				}
			}
		}
	})
}

// TestPathologicalShapesStayLinear: one chain, model or out-of-order
// residue per atom must not make Read quadratic.
func TestPathologicalShapesStayLinear(t *testing.T) {
	const n = 100000
	hdr := strings.Replace(ruleHeader, "data_x\n", "data_p\n", 1)
	shapes := map[string]func(i int) string{
		"chain per atom": func(i int) string {
			return fmt.Sprintf("ATOM %d C CA . ALA A 1 1 ? 0 0 0 1 10 1 C%d 1\n", i, i)
		},
		"model per atom": func(i int) string {
			return fmt.Sprintf("ATOM %d C CA . ALA A 1 1 ? 0 0 0 1 10 1 A %d\n", i, i)
		},
		"descending residues": func(i int) string {
			return fmt.Sprintf("ATOM %d C CA . ALA A 1 1 ? 0 0 0 1 10 %d A 1\n", i, n-i)
		},
	}
	for name, line := range shapes {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(hdr)
			for i := 0; i < n; i++ {
				b.WriteString(line(i))
			}
			start := time.Now()
			st, err := Read([]byte(b.String()))
			if err != nil {
				t.Fatal(err)
			}
			atoms := 0
			for _, m := range st.Models {
				for _, c := range m.Chains {
					for _, r := range c.Residues {
						atoms += len(r.Atoms)
					}
				}
			}
			if atoms != n {
				t.Fatalf("%d atoms, want %d", atoms, n)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v for %d atoms", d, n)
			}
		})
	}
}
