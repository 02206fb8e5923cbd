package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

func init() {
	registerBench("parse", "mmCIF read speed (MB/s) side by side with gemmi, memory, contacts cost", runBenchParse)
}

// gemmiBench times gemmi.read_structure over the files given on stdin (one
// path a line), trials times, and prints JSON {"trials": [seconds...],
// "maxrss_kb": N, "version": V}.
const gemmiBench = `
import json, sys, time
import gemmi
paths = [l.rstrip("\n") for l in sys.stdin if l.strip()]
trials = int(sys.argv[1])
out = []
for _ in range(trials):
    t = time.perf_counter()
    for p in paths:
        gemmi.read_structure(p)
    out.append(time.perf_counter() - t)
hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")]
print(json.dumps({"trials": out, "maxrss_kb": hwm[0] if hwm else -1, "version": gemmi.__version__}))
`

type gemmiResult struct {
	Trials   []float64 `json:"trials"`
	MaxRSSKB int64     `json:"maxrss_kb"`
	Version  string    `json:"version"`
}

func parseMedian(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func parseMinOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

// maxRSSKB is this process's peak resident set (VmHWM, which unlike
// getrusage's ru_maxrss is not inherited across fork+exec), or -1.
func maxRSSKB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscan(rest, &kb); err == nil {
				return kb
			}
		}
	}
	return -1
}

func runBenchParse(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench parse", flag.ContinueOnError)
	trials := fs.Int("trials", 5, "timed trials (min and median are reported)")
	python := fs.String("python", "/usr/bin/python3", "Python with gemmi for the side-by-side baseline (skipped if it lacks gemmi)")
	procs := fs.Int("procs", 1, "GOMAXPROCS while timing (1 = one core, as the goal is stated)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus bench parse [flags] DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return &exitError{2, err}
	}
	if fs.NArg() != 1 || *trials < 1 {
		fs.Usage()
		return &exitError{2, fmt.Errorf("need exactly one DIR and trials >= 1")}
	}
	rssStart := maxRSSKB()
	dir := fs.Arg(0)
	var paths []string
	for _, pat := range []string{"*.cif", "*.cif.gz", "*.mmcif"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return fmt.Errorf("no *.cif files in %s", dir)
	}
	files := make([][]byte, len(paths))
	var total int64
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[i], total = b, total+int64(len(b))
	}
	mb := float64(total) / 1e6
	rssFiles := maxRSSKB()
	fmt.Printf("bench parse: %d files, %.2f MB in %s; %d trials; GOMAXPROCS=%d while timing\n", len(files), mb, dir, *trials, *procs)

	// Go reader: warm-up pass (also counts failures), then timed trials.
	failed := 0
	for _, b := range files {
		if _, err := mmcif.Read(b); err != nil {
			failed++
		}
	}
	old := runtime.GOMAXPROCS(*procs)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	var goTimes []float64
	for t := 0; t < *trials; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		for _, b := range files {
			_, _ = mmcif.Read(b)
		}
		goTimes = append(goTimes, time.Since(start).Seconds())
	}
	runtime.ReadMemStats(&ms1)
	runtime.GOMAXPROCS(old)
	n := float64(*trials)
	allocsPerMB := float64(ms1.Mallocs-ms0.Mallocs) / n / mb
	bytesPerMB := float64(ms1.TotalAlloc-ms0.TotalAlloc) / n / mb
	goMin, goMed := parseMinOf(goTimes), parseMedian(goTimes)
	fmt.Printf("foldcorpus mmcif.Read: min %.3fs (%.0f MB/s)  median %.3fs (%.0f MB/s)  [%d files failed to read]\n", goMin, mb/goMin, goMed, mb/goMed, failed)
	fmt.Printf("  memory: %.0f allocations/MB, %.2f MB allocated per MB read; peak RSS %.1f MiB = %.1f MiB process baseline (this binary links every foldcorpus command) + %.1f MiB files held in memory + %.1f MiB for parsing\n",
		allocsPerMB, bytesPerMB/1e6, float64(maxRSSKB())/1024, float64(rssStart)/1024, float64(rssFiles-rssStart)/1024, float64(maxRSSKB()-rssFiles)/1024)

	debug.FreeOSMemory()

	// gemmi side by side, same files, same run.
	if out, err := exec.CommandContext(ctx, *python, "-c", "import gemmi").CombinedOutput(); err != nil {
		fmt.Printf("gemmi baseline: skipped (%s lacks gemmi: %s); install with: apt-get install python3-gemmi\n", *python, strings.TrimSpace(string(out)))
	} else {
		cmd := exec.CommandContext(ctx, *python, "-c", gemmiBench, fmt.Sprint(*trials))
		cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
		cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("gemmi baseline: %w", err)
		}
		var g gemmiResult
		if err := json.Unmarshal(out, &g); err != nil || len(g.Trials) == 0 {
			return fmt.Errorf("gemmi baseline: bad output %q: %v", out, err)
		}
		gMin, gMed := parseMinOf(g.Trials), parseMedian(g.Trials)
		fmt.Printf("gemmi %s read_structure: min %.3fs (%.0f MB/s)  median %.3fs (%.0f MB/s)  peak RSS %.1f MiB\n", g.Version, gMin, mb/gMin, gMed, mb/gMed, float64(g.MaxRSSKB)/1024)
		fmt.Printf("ratio foldcorpus/gemmi: %.2fx (min vs min)  %.2fx (median vs median)\n", gMin/goMin, gMed/goMed)
	}

	// Contacts cost per residue on the largest chains.
	type big struct {
		name string
		poly []structure.Residue
	}
	var bigs []big
	for i, b := range files {
		st, err := mmcif.Read(b)
		if err != nil || len(st.Models) == 0 || st.Models[0].PrincipalChain() == nil {
			continue
		}
		bigs = append(bigs, big{filepath.Base(paths[i]), st.Models[0].PrincipalChain().Polymer()})
	}
	sort.Slice(bigs, func(i, j int) bool { return len(bigs[i].poly) > len(bigs[j].poly) })
	if len(bigs) > 0 {
		fmt.Println("contacts (CB-CB, CA for GLY, < 8 Å, |i-j| >= 6), median of 5 x 20 reps, largest chains first:")
	}
	for _, bg := range append(bigs[:min(3, len(bigs))], bigs[len(bigs)-min(2, len(bigs)):]...) {
		var ts []float64
		nc := 0
		for t := 0; t < 5; t++ {
			start := time.Now()
			for r := 0; r < 20; r++ {
				cs, _ := structure.Contacts(bg.poly, 8.0, 6)
				nc = len(cs)
			}
			ts = append(ts, time.Since(start).Seconds()/20)
		}
		med := parseMedian(ts)
		fmt.Printf("  %-50s %5d residues %6d contacts  %8.1f µs  %6.0f ns/residue\n", bg.name, len(bg.poly), nc, med*1e6, med*1e9/float64(len(bg.poly)))
	}
	return nil
}
