package coordinatesv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// TestKernels: the C kernels (drawEventsC, writeEventsC) give the Go
// loops' documents, byte for byte with every metadata field, on the
// golden inputs under configurations that take their rare paths: windows
// of the Rand's outputs about as short as an event (most events go to
// drawEvent, and the kernel resumes after them), every depth sent to
// depth3 through drawEvent (marginFloor), most values recomputed exactly
// (tolFloor), short budgets, another epsilon and noise, no forced first
// depth, and several seeds per structure.
func TestKernels(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernels")
	}
	type setup struct {
		name        string
		cfg         func(*Config)
		window      int
		margin, tol float64
	}
	setups := []setup{
		{name: "default", cfg: func(*Config) {}},
		{name: "windows of 12", cfg: func(c *Config) { c.Front.ContextLength = 6000 }, window: 12},
		{name: "windows of 24", cfg: func(*Config) {}, window: 24},
		{name: "depth3 always", cfg: func(c *Config) { c.Front.ContextLength = 9000 }, margin: 10},
		{name: "exact values", cfg: func(*Config) {}, tol: 0.3},
		{name: "eps, noise, no forced first", cfg: func(c *Config) {
			c.DepthKernelEpsilon, c.NoiseDivisor, c.ForceFullPrecisionFirstEvent = 0.7, 0.37, false
		}},
		{name: "tiny budget", cfg: func(c *Config) { c.Front.ContextLength = 1200 }},
	}
	docs := 0
	for _, su := range setups {
		cfg := DefaultConfig()
		su.cfg(&cfg)
		goGen, cGen := new(Generator), new(Generator)
		docs += coordgolden.SameDocuments(t, golden, su.name, func(st *structure.Structure, a *contactsv1.Analysis, id string, kernel bool) coordgolden.Pair {
			g := goGen
			useKernel, marginFloor, tolFloor = kernel, su.margin, su.tol
			if kernel {
				g = cGen
				windowCap = su.window
			}
			defer func() { useKernel, marginFloor, tolFloor, windowCap = true, 0, 0, 0 }()
			d, filtered := g.Generate(st, a, id, cfg)
			if d == nil {
				return coordgolden.Pair{Filtered: filtered}
			}
			return coordgolden.Pair{Text: d.Text, Doc: *d}
		})
	}
	t.Logf("%d documents compared", docs)
}
