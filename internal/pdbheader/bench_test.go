package pdbheader

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the calling OS thread's CPU time (Linux RUSAGE_THREAD), so
// that a benchmark on a busy machine measures its own work, not its wait.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkScanGolden scans the 43 golden entries (in memory, plain and
// gzipped) and reports the thread CPU per entry beside exp222's figures
// from the golden lines: scan_cpu_s (scan_one: gemmi's cif.read and the
// category reads) and gemmi_read_cpu_s (gemmi.read_structure), each summed
// over the same 43 plain files and divided by 43 (one worker, 2-core AMD
// EPYC). x_exp222_scan is how many times faster than exp222's scan.
//
//	go test ./internal/pdbheader -run '^$' -bench ScanGolden -cpu 1
func BenchmarkScanGolden(b *testing.B) {
	dir, lines := goldenLines(b)
	var files [][]byte
	var names []string
	var exp222Scan, exp222Gemmi float64
	for _, g := range lines {
		if strings.Contains(g.File, "edge/") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, g.File))
		if err != nil {
			b.Fatal(err)
		}
		files, names = append(files, data), append(names, g.File)
		exp222Scan += g.Timing.ScanCPU
		exp222Gemmi += g.Timing.GemmiCPU
	}
	n := float64(len(files))
	run := func(b *testing.B, data [][]byte) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cpu0, start := threadCPU(), time.Now()
		for b.Loop() {
			for i, d := range data {
				if e := Scan(d, names[i]); e.Error != nil {
					b.Fatal(*e.Error)
				}
			}
		}
		per := (threadCPU() - cpu0).Seconds() / (float64(b.N) * n)
		b.ReportMetric(per*1e3, "cpu_ms/entry")
		b.ReportMetric(time.Since(start).Seconds()/(float64(b.N)*n)*1e3, "wall_ms/entry")
		b.ReportMetric(exp222Scan/n*1e3, "exp222_scan_ms/entry")
		b.ReportMetric(exp222Scan/n/per, "x_exp222_scan")
		b.ReportMetric(exp222Gemmi/n/per, "x_gemmi_read")
	}
	b.Run("plain", func(b *testing.B) { run(b, files) })
	b.Run("gzip", func(b *testing.B) {
		gz := make([][]byte, len(files))
		for i, d := range files {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(d)
			zw.Close()
			gz[i] = buf.Bytes()
		}
		b.ResetTimer()
		run(b, gz)
	})
}
