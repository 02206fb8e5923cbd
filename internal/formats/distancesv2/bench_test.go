package distancesv2

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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
	cpu0 := cpuTime(b)
	for i := 0; i < b.N; i++ {
		if _, err := f.Generate(ins[i%len(ins)]); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time (all threads: the GC's too) tells more than wall time on
	// shared cores
	b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
