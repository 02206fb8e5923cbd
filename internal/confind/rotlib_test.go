package confind

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

const okEBL = `LIBRARY TEST
RESI ALA
MOBI CB
DEFI N C CA CB
DEFI C CA CB
DEFI CA CB
CONF 120.005 106.506 1.520
CONF 121.0 106.506 1.520
WEIGHTS 0.6 0.4
`

const okBEBL = `PHIBIN 10
PSIBIN 10
RESI ALA
BIN -60 -40
LEVNUM 1
CONFIDX 1
BIN * *
LEVNUM 2
CONFIDX 0 1
`

// TestLibraryErrors: every malformed library is refused with an error
// wrapping ErrLibrary and derrors.ErrPermanent that names the file and line.
func TestLibraryErrors(t *testing.T) {
	edit := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("test text lacks %q", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	cases := []struct {
		name, ebl, bebl, want string
	}{
		{"conf width", edit(okEBL, "CONF 121.0 106.506 1.520", "CONF 121.0 106.506"), okBEBL, "EBL.out:8: CONF has 2 values, want 3"},
		{"weights count", edit(okEBL, "WEIGHTS 0.6 0.4", "WEIGHTS 0.6"), okBEBL, "EBL.out:9: RESI ALA has 1 WEIGHTS for 2 CONF rows"},
		{"no conf", "RESI ALA\nMOBI CB\nDEFI N C CA CB\nDEFI C CA CB\nDEFI CA CB\nWEIGHTS\n", okBEBL, "EBL.out:1: RESI ALA has no CONF rows"},
		{"defi counts", edit(okEBL, "DEFI CA CB\n", ""), okBEBL, "EBL.out:5: RESI ALA has 1 dihedral, 1 angle and 0 bond DEFI"},
		{"defi ends", edit(okEBL, "DEFI CA CB\n", "DEFI CA CG\n"), okBEBL, "DEFI 1 ends in CB (dihedral), CB (angle), CG (bond)"},
		{"mobi", edit(okEBL, "MOBI CB", "MOBI CB CG"), okBEBL, "EBL.out:3: RESI ALA: MOBI [CB CG] is not the set"},
		{"bad number", edit(okEBL, "120.005", "12O.005"), okBEBL, `EBL.out:7: CONF value "12O.005" is not a number`},
		{"keyword", edit(okEBL, "WEIGHTS", "WEIGHT"), okBEBL, `EBL.out:9: unknown keyword "WEIGHT"`},
		{"parent", edit(okEBL, "DEFI N C CA CB", "DEFI N C CG CB"), okBEBL, "places CB from CG, which is neither"},
		{"confidx range", okEBL, edit(okBEBL, "CONFIDX 1\n", "CONFIDX 2\n"), "BEBL.out:6: CONFIDX 2 is out of range: RESI ALA has 2 CONF rows"},
		{"levnum", okEBL, edit(okBEBL, "CONFIDX 0 1", "CONFIDX 0"), "BEBL.out:9: CONFIDX has 1 indices, LEVNUM (line 8) says 2"},
		{"no phibin", okEBL, edit(okBEBL, "PHIBIN 10\n", ""), "BEBL.out: PHIBIN and PSIBIN are required"},
		{"bin without levnum", okEBL, okBEBL + "BIN 10 10\n", "BEBL.out:10: BIN without LEVNUM/CONFIDX"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadLibrary(strings.NewReader(c.ebl), "lib/EBL.out", strings.NewReader(c.bebl), "lib/BEBL.out")
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrLibrary) || !errors.Is(err, derrors.ErrPermanent) {
				t.Errorf("ReadLibrary = %v, want an ErrLibrary containing %q", err, c.want)
			}
		})
	}
	lib, err := ReadLibrary(strings.NewReader(okEBL), "EBL.out", strings.NewReader(okBEBL), "BEBL.out")
	if err != nil || lib.Name != "TEST" || lib.ConfRows != 2 {
		t.Fatalf("ReadLibrary(ok) = %+v, %v", lib, err)
	}
	if _, err := LoadLibrary(filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrLibrary) || !strings.Contains(err.Error(), "EBL.out") {
		t.Errorf("LoadLibrary(missing) = %v", err)
	}
}

// TestBinLookup: pyconfind's bin keys (edges away from zero, 175 -> 180)
// and the weights[:nr] rule.
func TestBinLookup(t *testing.T) {
	for _, c := range []struct {
		a    float64
		want int32
	}{{-175, -180}, {174.99, 170}, {175, 180}, {-65, -70}, {-55, -60}, {155, 160}, {-64.99, -60}, {4.99, 0}, {-4.99, 0}, {5, 10}, {-5, -10}} {
		if got := binKey(c.a, 10); got != c.want {
			t.Errorf("binKey(%v) = %d, want %d", c.a, got, c.want)
		}
	}
	lib, err := ReadLibrary(strings.NewReader(okEBL), "EBL.out", strings.NewReader(okBEBL), "BEBL.out")
	if err != nil {
		t.Fatal(err)
	}
	p := &Position{Phi: -62, Psi: -38, HasPhi: true, HasPsi: true}
	if idx, _ := lib.confs("ALA", p); len(idx) != 1 || idx[0] != 1 {
		t.Errorf("bin (-60, -40) = %v, want [1]", idx)
	}
	p.Psi = 175 // key 180: no such bin, the wildcard
	if idx, _ := lib.confs("ALA", p); len(idx) != 2 {
		t.Errorf("bin (-60, 180) = %v, want the wildcard [0 1]", idx)
	}
	if _, ok := lib.confs("GLY", p); ok {
		t.Errorf("GLY has no BEBL entry: want no rotamers")
	}
}

// TestPairwiseSum: numpy's pairwise summation against its definition
// written out for n = 9 and n = 136 (the split branch).
func TestPairwiseSum(t *testing.T) {
	a := make([]float64, 136)
	for i := range a {
		a[i] = 0.1*float64(i%10) + 1/float64(3+i*7)
	}
	seq := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	}
	eight := func(x []float64) float64 {
		var r [8]float64
		copy(r[:], x[:8])
		i := 8
		for ; i < len(x)-len(x)%8; i += 8 {
			for j := range r {
				r[j] += x[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		return s + seq(x[i:])
	}
	if got, want := pairwiseSum(a[:5]), seq(a[:5]); got != want {
		t.Errorf("n=5: %v, want %v", got, want)
	}
	if got, want := pairwiseSum(a[:9]), eight(a[:9]); got != want {
		t.Errorf("n=9: %v, want %v", got, want)
	}
	if got, want := pairwiseSum(a), eight(a[:64])+eight(a[64:]); got != want {
		t.Errorf("n=136: %v, want %v (split at 64)", got, want)
	}
	if pairwiseSum(a[:9]) == seq(a[:9]) && pairwiseSum(a) == seq(a) {
		t.Errorf("test arrays do not tell the orders apart")
	}
}

// TestManyRows: a residue of more CONF rows than a chunk of confRows holds
// (ARG has 97,234 in a production-size library), after a residue that
// filled the chunks first, keeps every row's coefficients.
func TestManyRows(t *testing.T) {
	const rows = 3*(confChunk/3) + 17 // three chunks of rows of 3 values, and a part
	var b strings.Builder
	b.WriteString("RESI SER\nMOBI CB\nDEFI N C CA CB\nDEFI C CA CB\nDEFI CA CB\n")
	for r := range rows {
		fmt.Fprintf(&b, "CONF %d.5 106.5 1.52\n", r%3000)
	}
	b.WriteString("WEIGHTS" + strings.Repeat(" 0.1", rows) + "\n")
	b.WriteString("RESI ALA\nMOBI CB\nDEFI N C CA CB\nDEFI C CA CB\nDEFI CA CB\n")
	for r := range rows {
		fmt.Fprintf(&b, "CONF -%d.25 %d.125 1.5\n", r%7000, 100+r%11)
	}
	b.WriteString("WEIGHTS" + strings.Repeat(" 0.1", rows) + "\n")
	lib, err := ReadLibrary(strings.NewReader(b.String()), "EBL.out", strings.NewReader(okBEBL), "BEBL.out")
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, in func(r int) (dih, ang, bond float64)) {
		tp := lib.ebl[name]
		if tp.rows != rows || tp.varIdx[0] != 0 || tp.nVar != 1 {
			t.Fatalf("%s: %d rows, varIdx %v, nVar %d", name, tp.rows, tp.varIdx, tp.nVar)
		}
		for r := range rows {
			want := coefOf(in(r))
			if got := [4]float64(tp.varCoef[r*4 : r*4+4]); got != want {
				t.Fatalf("%s row %d: coefficients %v, want %v", name, r, got, want)
			}
		}
	}
	check("SER", func(r int) (float64, float64, float64) { return float64(r%3000) + 0.5, 106.5, 1.52 })
	check("ALA", func(r int) (float64, float64, float64) {
		return -(float64(r%7000) + 0.25), float64(100+r%11) + 0.125, 1.5
	})
}

// TestScanConf: the CONF fast path gives splitFields then
// strconv.ParseFloat's values for plain lines, and for the others either the
// same or declines (then the general path parses or refuses the line); and
// parseFloat, which shares its scanner (plainDecimal), agrees with
// strconv.ParseFloat on every field.
func TestScanConf(t *testing.T) {
	plain := []string{"120.005 106.506 1.520", "-60.0  +179.75\t0.000", " 1 2 3 ", "-0.0 0 .5", "1 2 3\r\n", "999999999999999 1 2"}
	other := []string{"1e5 2 3", "1 2", "1 2 3 4", "1.2.3 4 5", "- 1 2", "1 2 #3", "123456789012345.6 1 2", "nan 1 2", "", "1 2 3x"}
	for _, line := range append(plain, other...) {
		got := make([]float64, 3)
		if !scanConf(got, []byte(line)) {
			if slices.Contains(plain, line) {
				t.Errorf("scanConf(%q) declined a plain line", line)
			}
			continue
		}
		want := splitFields(nil, []byte(line))
		if len(want) != 3 {
			t.Errorf("scanConf(%q) took %d fields as 3", line, len(want))
			continue
		}
		for k, f := range want {
			v, err := strconv.ParseFloat(string(f), 64)
			if err != nil || math.Float64bits(v) != math.Float64bits(got[k]) {
				t.Errorf("scanConf(%q)[%d] = %v, strconv.ParseFloat(%q) = %v, %v", line, k, got[k], f, v, err)
			}
		}
	}
	for _, line := range append(plain, other...) {
		for _, f := range splitFields(nil, []byte(line)) {
			want, werr := strconv.ParseFloat(string(f), 64)
			got, err := parseFloat(f)
			if (err == nil) != (werr == nil) || err == nil && math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("parseFloat(%q) = %v, %v; strconv.ParseFloat: %v, %v", f, got, err, want, werr)
			}
		}
	}
}
