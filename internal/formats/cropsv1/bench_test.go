package cropsv1

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// BenchmarkGenerateAFDB generates every AFDB golden document once per
// iteration from its record (the structure already parsed).
func BenchmarkGenerateAFDB(b *testing.B) {
	dir := testcorpus.Dir(b)
	type in struct {
		st *structure.Structure
		a  *contactsv1.Analysis
		id string
	}
	var ins []in
	for _, l := range coordgolden.Load(b, golden) {
		if !strings.HasPrefix(l.File, "afdb/") || l.Outcome != "document" {
			continue
		}
		st, err := mmcif.ReadFile(filepath.Join(dir, l.File))
		if err != nil {
			b.Fatal(err)
		}
		ins = append(ins, in{st, l.Analysis, l.ID()})
	}
	cfg := DefaultConfig()
	gen := new(Generator)
	b.ResetTimer()
	c0 := coordgolden.CPU()
	for range b.N {
		for _, x := range ins {
			if d, f := gen.Generate(x.st, x.a, x.id, cfg); d == nil {
				b.Fatal(f)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(ins)), "us/doc")
	b.ReportMetric(float64((coordgolden.CPU()-c0).Microseconds())/float64(b.N*len(ins)), "cpu-us/doc")
}
