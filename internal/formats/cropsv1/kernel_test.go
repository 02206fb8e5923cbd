package cropsv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// TestKernel: the C kernel (candidatesC) gives the Go loop's documents,
// byte for byte with every metadata field, on the golden inputs under
// configurations that take its rare paths: windows shorter than a
// candidate's draws (most candidates go to candidate, and the kernel
// resumes after them), wider noise (more candidates near the box, more
// values computed), other keep probabilities and budgets, the screen
// without AVX2 (cr_screen_any), and several seeds per structure.
func TestKernel(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernel")
	}
	setups := []struct {
		name   string
		cfg    func(*Config)
		window int
		scalar bool // cr_screen_any where the CPU has AVX2
	}{
		{name: "default", cfg: func(*Config) {}},
		{name: "windows of 12", cfg: func(*Config) {}, window: 12},
		{name: "windows of 37", cfg: func(*Config) {}, window: 37},
		{name: "wide noise, keep half", cfg: func(c *Config) { c.RefineNoiseBase, c.KeepProb = 3.5, 0.5 }},
		{name: "all pass 2", cfg: func(c *Config) { c.FineReserve, c.Pass1Sigma = 100000, 0.3 }, window: 200},
		{name: "short context", cfg: func(c *Config) { c.Front.ContextLength, c.FineReserve = 3000, 1500 }},
		{name: "scalar screen", cfg: func(*Config) {}, scalar: true},
		{name: "scalar screen, windows of 37, wide noise", cfg: func(c *Config) { c.RefineNoiseBase = 3.5 }, window: 37, scalar: true},
	}
	docs := 0
	for _, su := range setups {
		cfg := DefaultConfig()
		su.cfg(&cfg)
		goGen, cGen := new(Generator), new(Generator)
		docs += coordgolden.SameDocuments(t, golden, su.name, func(st *structure.Structure, a *contactsv1.Analysis, id string, kernel bool) coordgolden.Pair {
			g := goGen
			useKernel = kernel
			avx2 := screenAVX2
			if kernel {
				g, windowCap = cGen, su.window
				if su.scalar {
					screenAVX2 = 0
				}
			}
			defer func() { useKernel, windowCap, screenAVX2 = true, 0, avx2 }()
			d, filtered := g.Generate(st, a, id, cfg)
			if d == nil {
				return coordgolden.Pair{Filtered: filtered}
			}
			return coordgolden.Pair{Text: d.Text, Doc: *d}
		})
	}
	t.Logf("%d documents compared", docs)
}
