package cadv2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// BenchmarkGenerate times adaptation + generation (no parsing) per AFDB
// document; `foldcorpus bench docs` reports the full split.
func BenchmarkGenerate(b *testing.B) {
	dir := filepath.Join(testcorpus.Dir(b), "afdb")
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var ins []format.Input
	for _, e := range ents {
		s, err := mmcif.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		ins = append(ins, format.Input{EntryID: EntryID(s.Name, e.Name()), Structure: s})
	}
	f := mustFormat(b, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.Generate(ins[i%len(ins)]); err != nil {
			b.Fatal(err)
		}
	}
}
