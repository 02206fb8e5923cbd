package ccoordv1

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestKernels: the C kernels (drawEventsC, writeEventsC) give the Go
// loops' documents, byte for byte with every metadata field, on the
// golden inputs under configurations that take their rare paths: a stream
// buffer shorter than an event (refills and growth at every event), every
// depth sent to depth3 (marginFloor), most values recomputed exactly
// (tolFloor), short budgets, another epsilon and noise, no forced first
// depth, and several seeds per structure.
func TestKernels(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernels")
	}
	type setup struct {
		name        string
		cfg         func(*Config)
		stream      int
		margin, tol float64
	}
	setups := []setup{
		{name: "default", cfg: func(*Config) {}},
		{name: "short stream", cfg: func(c *Config) { c.Front.ContextLength = 6000 }, stream: 12},
		{name: "stream of 24", cfg: func(*Config) {}, stream: 24},
		{name: "depth3 always", cfg: func(c *Config) { c.Front.ContextLength = 9000 }, margin: 10},
		{name: "exact values", cfg: func(*Config) {}, tol: 0.3},
		{name: "eps, noise, no forced first", cfg: func(c *Config) {
			c.DepthKernelEpsilon, c.NoiseDivisor, c.ForceFullPrecisionFirstEvent = 0.7, 0.37, false
		}},
		{name: "tiny budget", cfg: func(c *Config) { c.Front.ContextLength = 1200 }},
	}
	lines := coordgolden.Load(t, golden)
	dir := testcorpus.Dir(t)
	docs := 0
	for _, su := range setups {
		cfg := DefaultConfig()
		su.cfg(&cfg)
		goGen, cGen := new(Generator), new(Generator)
		for _, l := range lines {
			if l.Analysis == nil || l.Outcome != "document" {
				continue
			}
			st, err := mmcif.ReadFile(filepath.Join(dir, l.File))
			if err != nil {
				t.Fatal(err)
			}
			for _, suffix := range []string{"", "-b", "-c"} {
				id := l.ID() + suffix
				useKernel, marginFloor, tolFloor = false, su.margin, su.tol
				want, wf := goGen.Generate(st, l.Analysis, id, cfg)
				useKernel = true
				if su.stream > 0 {
					streamLen = su.stream
				}
				got, gf := cGen.Generate(st, l.Analysis, id, cfg)
				useKernel, marginFloor, tolFloor, streamLen = true, 0, 0, 4096
				if wf != gf {
					t.Fatalf("%s, %s: filtered %q by Go, %q by C", su.name, id, wf, gf)
				}
				if want == nil {
					continue
				}
				docs++
				if got.Text != want.Text {
					t.Fatalf("%s, %s: the C kernels' document differs from Go's\n%s", su.name, id, coordgolden.FirstDiff(got.Text, want.Text))
				}
				if !reflect.DeepEqual(got, want) {
					got.Text, want.Text = "", ""
					t.Fatalf("%s, %s: the metadata differ\nC:  %+v\nGo: %+v", su.name, id, *got, *want)
				}
			}
		}
	}
	t.Logf("%d documents compared", docs)
}
