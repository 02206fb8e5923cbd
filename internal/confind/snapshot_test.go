package confind

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

func miniLib(tb testing.TB) *Library {
	tb.Helper()
	lib, err := Shared(filepath.Join(testcorpus.Dir(tb), "golden", "confind-mini-rotlib"))
	if err != nil {
		tb.Fatal(err)
	}
	return lib
}

// TestSnapshots reproduces pyconfind's committed .mini.cont snapshots
// (default 18-type mode, mini library) byte for byte.
func TestSnapshots(t *testing.T) {
	dir := filepath.Join(testcorpus.Dir(t), "golden", "confind-snapshots")
	lib := miniLib(t)
	for _, name := range []string{"example0000.cif", "example0002.cif", "example0007.cif", "1CRN.pdb", "1UBQ.pdb", "1EJG.pdb"} {
		t.Run(name, func(t *testing.T) {
			st, err := mmcif.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Compute(st, lib, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".mini.cont"))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.ContText(); got != string(want) {
				t.Errorf("ContText(%s) differs from the snapshot:\n%s", name, firstDiff(got, string(want)))
			}
		})
	}
}

// firstDiff describes the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + itoa(i+1) + ":\n got  " + gl + "\n want " + wl
		}
	}
	return "(same lines)"
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestEdgeCont reproduces the default-mode .cont texts of confind-edge
// (mini library for every case, synthetic library for two).
func TestEdgeCont(t *testing.T) {
	dir := filepath.Join(testcorpus.Dir(t), "golden", "confind-edge")
	conts, err := filepath.Glob(filepath.Join(dir, "*.cont"))
	if err != nil || len(conts) < 15 {
		t.Fatalf("confind-edge .cont files: %d, %v", len(conts), err)
	}
	for _, path := range conts {
		base := filepath.Base(path)
		t.Run(base, func(t *testing.T) {
			parts := strings.Split(base, ".")
			lib := miniLib(t)
			if parts[1] == "synth" {
				lib = synthLib(t)
			}
			st, err := mmcif.ReadFile(filepath.Join(dir, parts[0]+".cif"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Compute(st, lib, false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.ContText(); got != string(want) {
				t.Errorf("ContText differs from %s:\n%s", base, firstDiff(got, string(want)))
			}
		})
	}
}
