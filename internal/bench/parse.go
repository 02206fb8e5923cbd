package bench

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

// gemmiBench serves timed passes of gemmi.read_structure over the files
// named on its first stdin line (a JSON list): for each "T N" line it reads
// every file N times and answers "wall cpu" in seconds; on "Q" it answers
// {"maxrss_kb": VmHWM, "version": V} and exits. Go and gemmi trials are
// interleaved so that both see the same machine load.
const gemmiBench = `
import json, sys, time
import gemmi
paths = json.loads(sys.stdin.readline())
for line in sys.stdin:
    if line.startswith("T"):
        reps = int(line.split()[1])
        w, c = time.perf_counter(), time.process_time()
        for _ in range(reps):
            for p in paths:
                gemmi.read_structure(p)
        print(time.perf_counter() - w, time.process_time() - c, flush=True)
    else:
        break
hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")]
print(json.dumps({"maxrss_kb": hwm[0] if hwm else -1, "version": gemmi.__version__}), flush=True)
`

type gemmiResult struct {
	MaxRSSKB int64  `json:"maxrss_kb"`
	Version  string `json:"version"`
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

// Parse runs `bench parse`: mmcif.Read's speed (MB/s, wall and CPU) over a
// folder of mmCIF files, side by side with gemmi's read_structure in the
// same run (trials interleaved), its allocations and peak RSS, and the
// contact map's cost per residue on the largest chains.
func Parse(ctx context.Context, args []string) error {
	o, err := parseBenchFlags(args)
	if err != nil {
		return err
	}
	rssStart := maxRSSKB()
	paths, files, total, err := readParseInputs(o.dir)
	if err != nil {
		return err
	}
	mb := float64(total) / 1e6
	rssFiles := maxRSSKB()
	fmt.Printf("bench parse: %d files, %.2f MB in %s; %d trials of %d passes each; GOMAXPROCS=%d while timing\n", len(files), mb, o.dir, o.trials, o.reps, o.procs)

	// Go reader: warm-up pass (also counts failures).
	failed := 0
	for _, b := range files {
		if _, err := mmcif.Read(b); err != nil {
			failed++
		}
	}
	gemmi, err := startGemmiBench(ctx, o.python, paths)
	if err != nil {
		return err
	}
	t, err := parseTrials(ctx, o, files, gemmi)
	if err != nil {
		return err
	}
	n := float64(o.trials)
	mb *= float64(o.reps) // MB read per trial
	allocsPerMB := float64(t.allocs) / n / mb
	bytesPerMB := float64(t.allocBytes) / n / mb
	parseReportLine("foldcorpus mmcif.Read:", mb, t.goWall, t.goCPU)
	if failed > 0 {
		fmt.Printf("  (%d files failed to read)\n", failed)
	}
	fmt.Printf("  memory: %.0f allocations/MB, %.2f MB allocated per MB read; peak RSS %.1f MiB = %.1f MiB process baseline (this bench binary, its harnesses included) + %.1f MiB files held in memory + %.1f MiB for parsing\n",
		allocsPerMB, bytesPerMB/1e6, float64(maxRSSKB())/1024, float64(rssStart)/1024, float64(rssFiles-rssStart)/1024, float64(maxRSSKB()-rssFiles)/1024)
	debug.FreeOSMemory()
	if gemmi != nil {
		if err := reportGemmiParse(gemmi, mb, t); err != nil {
			return err
		}
	}
	parseContacts(paths, files)
	return nil
}

// parseBenchOptions is the command line of `bench parse`.
type parseBenchOptions struct {
	trials, procs, reps int
	python              string
	dir                 string
}

// parseBenchFlags reads the command line of `bench parse`.
func parseBenchFlags(args []string) (parseBenchOptions, error) {
	fs := flag.NewFlagSet("bench parse", flag.ContinueOnError)
	trials := fs.Int("trials", 5, "timed trials (min and median are reported)")
	python := fs.String("python", "/usr/bin/python3", "Python with gemmi for the side-by-side baseline (skipped if it lacks gemmi)")
	procs := fs.Int("procs", 1, "GOMAXPROCS while timing (1 = one core, as the goal is stated)")
	reps := fs.Int("reps", 3, "passes over all files per trial (longer trials steady the CPU-time figures)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus-bench parse [flags] DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseBenchOptions{}, usageError(err)
	}
	if fs.NArg() != 1 || *trials < 1 || *reps < 1 {
		fs.Usage()
		return parseBenchOptions{}, usageError(fmt.Errorf("need exactly one DIR and trials >= 1"))
	}
	return parseBenchOptions{trials: *trials, procs: *procs, reps: *reps, python: *python, dir: fs.Arg(0)}, nil
}

// readParseInputs reads the *.cif, *.cif.gz and *.mmcif files of dir
// into memory, returning their paths (sorted), contents and total size.
func readParseInputs(dir string) (paths []string, files [][]byte, total int64, err error) {
	for _, pat := range []string{"*.cif", "*.cif.gz", "*.mmcif"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		paths = append(paths, m...)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, nil, 0, fmt.Errorf("no *.cif files in %s", dir)
	}
	files = make([][]byte, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, 0, err
		}
		files[i], total = b, total+int64(len(b))
	}
	return paths, files, total, nil
}

// startGemmiBench starts gemmiBench over paths and runs its warm-up pass,
// for gemmi side by side in the same run, its trials interleaved with
// ours. Where python lacks gemmi it says so and returns nil.
func startGemmiBench(ctx context.Context, python string, paths []string) (*pyServer, error) {
	if out, err := exec.CommandContext(ctx, python, "-c", "import gemmi").CombinedOutput(); err != nil {
		fmt.Printf("gemmi baseline: skipped (%s lacks gemmi: %s); install with: apt-get install python3-gemmi\n", python, strings.TrimSpace(string(out)))
		return nil, nil
	}
	gemmi, err := startPyServer(ctx, python, gemmiBench)
	if err != nil {
		return nil, fmt.Errorf("gemmi baseline: %w", err)
	}
	list, _ := json.Marshal(paths)
	if err := gemmi.send(string(list)); err != nil {
		return nil, fmt.Errorf("gemmi baseline: %w", err)
	}
	if _, err := gemmi.ask("T 1"); err != nil { // warm-up pass
		return nil, fmt.Errorf("gemmi baseline: %w", err)
	}
	return gemmi, nil
}

// parseTimes are the trials' figures: each trial's wall and CPU seconds,
// ours and gemmi's (none without gemmi), and our allocations over all
// trials.
type parseTimes struct {
	goWall, goCPU, gWall, gCPU []float64
	allocs, allocBytes         uint64
}

// parseTrials runs the timed trials on o.procs cores: each reads every
// file o.reps times with mmcif.Read, then has gemmi (nil: none) do the
// same.
func parseTrials(ctx context.Context, o parseBenchOptions, files [][]byte, gemmi *pyServer) (parseTimes, error) {
	var t parseTimes
	old := runtime.GOMAXPROCS(o.procs)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for range o.trials {
		if err := ctx.Err(); err != nil {
			return t, err
		}
		runtime.ReadMemStats(&ms0)
		w, c := time.Now(), processCPU().Seconds()
		for r := 0; r < o.reps; r++ {
			for _, b := range files {
				_, _ = mmcif.Read(b)
			}
		}
		t.goWall = append(t.goWall, time.Since(w).Seconds())
		t.goCPU = append(t.goCPU, processCPU().Seconds()-c)
		runtime.ReadMemStats(&ms1)
		t.allocs += ms1.Mallocs - ms0.Mallocs
		t.allocBytes += ms1.TotalAlloc - ms0.TotalAlloc
		if gemmi != nil {
			line, err := gemmi.ask(fmt.Sprintf("T %d", o.reps))
			if err != nil {
				return t, fmt.Errorf("gemmi baseline: %w", err)
			}
			var gw, gc float64
			if _, err := fmt.Sscan(line, &gw, &gc); err != nil {
				return t, fmt.Errorf("gemmi baseline: bad line %q", line)
			}
			t.gWall, t.gCPU = append(t.gWall, gw), append(t.gCPU, gc)
		}
	}
	runtime.GOMAXPROCS(old)
	return t, nil
}

// parseReportLine prints one reader's min and median wall and CPU seconds
// per trial of mb MB, and the MB/s of each.
func parseReportLine(name string, mb float64, wall, cpu []float64) {
	fmt.Printf("%-26s wall min %.3fs (%4.0f MB/s) median %.3fs (%4.0f MB/s) | cpu min %.3fs (%4.0f MB/s) median %.3fs (%4.0f MB/s)\n", name,
		parseMinOf(wall), mb/parseMinOf(wall), median(wall), mb/median(wall),
		parseMinOf(cpu), mb/parseMinOf(cpu), median(cpu), mb/median(cpu))
}

// reportGemmiParse ends gemmi's server, whose last line is its version and
// peak RSS, and prints its line and our ratio to it.
func reportGemmiParse(gemmi *pyServer, mb float64, t parseTimes) error {
	line, err := gemmi.ask("Q")
	var g gemmiResult
	if err != nil || json.Unmarshal([]byte(line), &g) != nil {
		return fmt.Errorf("gemmi baseline: bad final line %q: %v", line, err)
	}
	_ = gemmi.close()
	parseReportLine(fmt.Sprintf("gemmi %s read_structure:", g.Version), mb, t.gWall, t.gCPU)
	fmt.Printf("  peak RSS %.1f MiB (python + gemmi, one file at a time)\n", float64(g.MaxRSSKB)/1024)
	fmt.Printf("ratio foldcorpus/gemmi (MB/s): wall %.2fx min, %.2fx median | cpu %.2fx min, %.2fx median (trials interleaved)\n",
		parseMinOf(t.gWall)/parseMinOf(t.goWall), median(t.gWall)/median(t.goWall),
		parseMinOf(t.gCPU)/parseMinOf(t.goCPU), median(t.gCPU)/median(t.goCPU))
	return nil
}

// parseContacts prints the contacts' cost per residue on the largest
// chains (and the two smallest) of the files.
func parseContacts(paths []string, files [][]byte) {
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
		med := median(ts)
		fmt.Printf("  %-50s %5d residues %6d contacts  %8.1f µs  %6.0f ns/residue\n", bg.name, len(bg.poly), nc, med*1e6, med*1e9/float64(len(bg.poly)))
	}
}
