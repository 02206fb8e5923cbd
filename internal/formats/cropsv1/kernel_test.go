package cropsv1

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestKernel: the C kernel (candidatesC) gives the Go loop's documents,
// byte for byte with every metadata field, on the golden inputs under
// configurations that take its rare paths: windows shorter than a
// candidate's draws (most candidates go to candidate, and the kernel
// resumes after them), wider noise (more candidates near the box, more
// values computed), other keep probabilities and budgets, and several
// seeds per structure.
func TestKernel(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernel")
	}
	setups := []struct {
		name   string
		cfg    func(*Config)
		window int
	}{
		{name: "default", cfg: func(*Config) {}},
		{name: "windows of 12", cfg: func(*Config) {}, window: 12},
		{name: "windows of 37", cfg: func(*Config) {}, window: 37},
		{name: "wide noise, keep half", cfg: func(c *Config) { c.RefineNoiseBase, c.KeepProb = 3.5, 0.5 }},
		{name: "all pass 2", cfg: func(c *Config) { c.FineReserve, c.Pass1Sigma = 100000, 0.3 }, window: 200},
		{name: "short context", cfg: func(c *Config) { c.Front.ContextLength, c.FineReserve = 3000, 1500 }},
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
				useKernel = false
				want, wf := goGen.Generate(st, l.Analysis, id, cfg)
				useKernel, windowCap = true, su.window
				got, gf := cGen.Generate(st, l.Analysis, id, cfg)
				windowCap = 0
				if wf != gf {
					t.Fatalf("%s, %s: filtered %q by Go, %q by C", su.name, id, wf, gf)
				}
				if want == nil {
					continue
				}
				docs++
				if got.Text != want.Text {
					t.Fatalf("%s, %s: the C kernel's document differs from Go's\n%s", su.name, id, coordgolden.FirstDiff(got.Text, want.Text))
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
