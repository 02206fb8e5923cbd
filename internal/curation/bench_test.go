package curation

import (
	"os"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// BenchmarkCuratePDB: read (ReadEntry) and curate (asymmetric unit and
// assembly 1, header counted from the entry) every entry of the PDB
// corpus once per iteration; ns/op is per pass over the corpus, entries/op
// says how many.
func BenchmarkCuratePDB(b *testing.B) {
	files := testcorpus.Files(b, "pdb")
	data := make([][]byte, len(files))
	for i, f := range files {
		var err error
		if data[i], err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
	}
	for _, phase := range []string{"read", "read+curate"} {
		b.Run(phase, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for k, d := range data {
					e, err := mmcif.ReadEntry(d)
					if err != nil {
						b.Fatalf("%s: %v", files[k], err)
					}
					if phase == "read" {
						continue
					}
					header := int(pdbheader.Scan(d, files[k]).NAssembly1ProteinChains)
					if _, err := Curate(e, Options{MaxChains: DefaultMaxChains, HeaderChains: &header}); err != nil {
						b.Fatalf("%s: %v", files[k], err)
					}
				}
			}
			b.ReportMetric(float64(len(data)), "entries/op")
		})
	}
}
