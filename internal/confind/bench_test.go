package confind

import (
	"os"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// BenchmarkAFDB computes every AFDB structure of the shared corpus in
// native-only mode with the library in $CONFIND_BENCH_ROTLIB (the
// synthetic production-size one of synth_rotlib.py); skipped without it.
func BenchmarkAFDB(b *testing.B) {
	dir := os.Getenv("CONFIND_BENCH_ROTLIB")
	if dir == "" {
		b.Skip("CONFIND_BENCH_ROTLIB not set")
	}
	lib, err := LoadLibrary(dir)
	if err != nil {
		b.Fatal(err)
	}
	paths := testcorpus.Files(b, "afdb")
	var sts []*structure.Structure
	for _, p := range paths {
		st, err := mmcif.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		sts = append(sts, st)
	}
	b.ResetTimer()
	for range b.N {
		for _, st := range sts {
			if _, err := Compute(st, lib, true); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(sts)), "ms/structure")
}
