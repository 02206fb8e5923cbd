package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// gemmiServe times gemmi.read_structure of each path it reads from stdin,
// one "REPS PATH" per line, and prints the median CPU seconds of its REPS
// reads, after a first line with gemmi's version: one process for the
// whole bench, so that each file's reads are timed right beside its
// computations.
const gemmiServe = `
import sys, time
import gemmi
print(gemmi.__version__, flush=True)
for line in sys.stdin:
    reps, path = line.rstrip("\n").split(" ", 1)
    ts = []
    for _ in range(int(reps)):
        c = time.process_time()
        gemmi.read_structure(path)
        ts.append(time.process_time() - c)
    print(sorted(ts)[len(ts) // 2], flush=True)
`

// gemmiReader is a running gemmiServe.
type gemmiReader struct {
	*pyServer
	version string
}

func startGemmi(ctx context.Context, python string) (*gemmiReader, error) {
	srv, err := startPyServer(ctx, python, gemmiServe)
	if err != nil {
		return nil, fmt.Errorf("gemmi baseline (%s with python3-gemmi): %w", python, err)
	}
	line, err := srv.answer()
	if err != nil {
		srv.close()
		return nil, fmt.Errorf("gemmi baseline (%s with python3-gemmi): no version line: %v", python, err)
	}
	return &gemmiReader{srv, strings.TrimSpace(line)}, nil
}

// read is gemmi's median CPU to read path, over reps reads in a row, in ms.
func (g *gemmiReader) read(path string, reps int) (float64, error) {
	line, err := g.ask(fmt.Sprintf("%d %s", reps, path))
	if err != nil {
		return 0, fmt.Errorf("gemmi baseline reading %s: %w", path, err)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
	if err != nil {
		return 0, fmt.Errorf("gemmi baseline reading %s: output %q", path, line)
	}
	return v * 1e3, nil
}

// runCopies is how many times the longer of a round's two runs takes the
// files: the difference of two runs is noisy, and spread over more
// structures.
const runCopies = 6

// pyconfind as measured on this machine (formats/contacts-v1-confind.md
// section 10): numba, one thread, synthetic library, 42 AFDB files.
const (
	pyconfindMedianS     = 0.362
	pyconfindGemmiRatio  = 61.9 // ratio of medians, pyconfind / gemmi read_structure
	pyconfindPerFileRate = 57.1 // median per-file ratio
)

// threadCPU is the calling OS thread's CPU time, to the nanosecond
// (CLOCK_THREAD_CPUTIME_ID; getrusage's is in scheduler ticks). The caller
// locks itself to its thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// Confind measures ConFind (MarinFold's native-only settings) per AFDB
// structure, CPU of its stages (placement with pruning, one pass; degrees) on one thread,
// side by side with gemmi's read_structure of the same files and with
// pyconfind's measured figures; the library's load CPU and peak RSS (a
// `foldcorpus confind` child on the smallest file); and whole `run
// --format contacts-v1 --opt rotlib=` children over the files once and
// six times, whose difference per structure is set against the computation
// alone.
func Confind(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench confind", flag.ContinueOnError)
	rotlib := fs.String("rotlib", "", "rotamer library folder (default: write the synthetic production-size library into a temporary folder with --synth)")
	synth := fs.String("synth", "../shared/tools/synth_rotlib.py", "synth_rotlib.py, used when --rotlib is not given")
	template := fs.String("template", "../shared/corpus/golden/confind-mini-rotlib/EBL.out", "the template synth_rotlib.py reads")
	reps := fs.Int("reps", 3, "runs of each measurement (medians are reported)")
	python := fs.String("python", "/usr/bin/python3", "Python with gemmi")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus bench confind [flags] DIR   (e.g. ../shared/corpus/afdb)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if fs.NArg() != 1 || *reps < 1 {
		fs.Usage()
		return usageError(fmt.Errorf("need one DIR and --reps >= 1"))
	}
	paths, _ := filepath.Glob(filepath.Join(fs.Arg(0), "*.cif"))
	sort.Strings(paths)
	if len(paths) == 0 {
		return fmt.Errorf("no *.cif files in %s", fs.Arg(0))
	}
	tmp, err := os.MkdirTemp("", "bench-confind-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	lib := *rotlib
	if lib == "" {
		lib = filepath.Join(tmp, "rotlib")
		out, err := exec.CommandContext(ctx, *python, *synth, "--template", *template, "--out", lib).CombinedOutput()
		if err != nil {
			return fmt.Errorf("writing the synthetic library (%s): %w\n%s", *synth, err, out)
		}
	}
	self, err := CLI(ctx)
	if err != nil {
		return err
	}

	// Library load: a child that loads it and analyses the smallest file.
	smallest, size := "", int64(-1)
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && (size < 0 || fi.Size() < size) {
			smallest, size = p, fi.Size()
		}
	}
	// The texts alone (links to them) and the texts with their compact
	// form (written by `foldcorpus confind --compact`), alternated.
	textDir, compactDir := filepath.Join(tmp, "text"), filepath.Join(tmp, "compact")
	for _, d := range []string{textDir, compactDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		for _, n := range []string{"EBL.out", "BEBL.out"} {
			abs, err := filepath.Abs(filepath.Join(lib, n))
			if err != nil {
				return err
			}
			if err := os.Symlink(abs, filepath.Join(d, n)); err != nil {
				return err
			}
		}
	}
	if out, err := exec.CommandContext(ctx, self, "confind", "--compact", "--rotlib", compactDir).CombinedOutput(); err != nil {
		return fmt.Errorf("foldcorpus confind --compact: %w\n%s", err, out)
	}
	var loadCPU, loadRSS, compactCPU, compactRSS []float64
	for range *reps {
		m, err := child(ctx, self, nil, "confind", "--native-only", "--rotlib", textDir, smallest)
		if err != nil {
			return err
		}
		loadCPU, loadRSS = append(loadCPU, m.cpu), append(loadRSS, m.rssMiB)
		m, err = child(ctx, self, nil, "confind", "--native-only", "--rotlib", compactDir, smallest)
		if err != nil {
			return err
		}
		compactCPU, compactRSS = append(compactCPU, m.cpu), append(compactRSS, m.rssMiB)
	}
	lib = textDir

	// Rounds, each of every measurement in a row (the computation on one
	// thread beside gemmi's read, the computation on every core, the
	// runs), so that each ratio is taken within a round, and the machine's
	// drift (it is shared) cancels in it; the figures are the medians over
	// rounds. Within a round, each file is computed three times in a row,
	// then read by gemmi three times in a row, each side's figure its
	// median; then a pass computes every file once, one after the other, as
	// a run computes them (their library rows not left in the caches by
	// the structure itself): the mean against which the runs are set.
	l, err := confind.LoadLibrary(lib)
	if err != nil {
		return err
	}
	sts := make([]*structure.Structure, len(paths))
	for i, p := range paths {
		if sts[i], err = mmcif.ReadFile(p); err != nil {
			return err
		}
	}
	// Whole runs (one worker) over the files once and six times (the
	// copies under other entry ids), in every round: the difference over
	// the 5n extra structures is the run's CPU per structure, without what
	// a run costs once (the library load, the report's rendering), which a
	// shard of thousands of rows amortizes. On one core (GOMAXPROCS=1: one
	// row at a time), and on every core (a shard's rows GOMAXPROCS at a
	// time).
	manifests := map[int]string{}
	for _, copies := range []int{1, runCopies} {
		var rows [][]any
		for c := range copies {
			for _, p := range paths {
				abs, _ := filepath.Abs(p)
				id := strings.TrimSuffix(filepath.Base(p), ".cif")
				if c > 0 {
					id = fmt.Sprintf("%s-copy%d", id, c)
				}
				rows = append(rows, []any{id, "file://" + abs})
			}
		}
		data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, rows, 0)
		if err != nil {
			return err
		}
		manifests[copies] = filepath.Join(tmp, fmt.Sprintf("manifest%d.parquet", copies))
		if err := os.WriteFile(manifests[copies], data, 0o644); err != nil {
			return err
		}
	}
	runPer := func(r, procs int) (float64, error) {
		var cpu [2]float64
		for k, copies := range []int{1, runCopies} {
			m, err := child(ctx, self, []string{fmt.Sprintf("GOMAXPROCS=%d", procs)}, "run", "--format", "contacts-v1", "--opt", "rotlib="+lib,
				"--manifest", manifests[copies], "--out", filepath.Join(tmp, fmt.Sprintf("out%d-%d-%d", copies, procs, r)), "--workers", "1")
			if err != nil {
				return 0, err
			}
			cpu[k] = m.cpu
		}
		return (cpu[1] - cpu[0]) / float64((runCopies-1)*len(paths)) * 1e3, nil
	}
	const passes = 3
	cores := runtime.GOMAXPROCS(0)
	type round struct {
		tot, ro, de, gem, perFile, per400 float64 // medians over files, ms
		mean, meanAll                     float64 // mean per structure on one thread, and on every core at once, ms
		run1, runAll                      float64 // a run's CPU per structure on one core, and on every core, ms
	}
	rounds := make([]round, *reps)
	gr, err := startGemmi(ctx, *python)
	if err != nil {
		return err
	}
	defer gr.close()
	gemmiVersion := gr.version
	for r := range rounds {
		type fileM struct{ total, rots, degre []float64 }
		per := make([]fileM, len(paths))
		res := make([]int, len(paths))
		gem := make([]float64, len(paths))
		runtime.LockOSThread()
		for i, st := range sts {
			for range passes {
				tm := confind.Timings{Clock: threadCPU}
				c0 := threadCPU()
				out, err := confind.ComputeTimed(st, l, true, &tm)
				if err != nil {
					runtime.UnlockOSThread()
					return fmt.Errorf("%s: %w", paths[i], err)
				}
				per[i].total = append(per[i].total, (threadCPU()-c0).Seconds()*1e3)
				per[i].rots = append(per[i].rots, tm.Rotamers.Seconds()*1e3)
				per[i].degre = append(per[i].degre, tm.Degrees.Seconds()*1e3)
				res[i] = len(out.Positions)
			}
			ms, err := gr.read(paths[i], passes)
			if err != nil {
				runtime.UnlockOSThread()
				return err
			}
			gem[i] = ms
		}
		// a pass over all the files, each once, as a run computes them
		// (their library rows not left in the caches by the structure
		// itself)
		c0 := threadCPU()
		for i, st := range sts {
			if _, err := confind.Compute(st, l, true); err != nil {
				runtime.UnlockOSThread()
				return fmt.Errorf("%s: %w", paths[i], err)
			}
		}
		rd := &rounds[r]
		rd.mean = (threadCPU() - c0).Seconds() * 1e3 / float64(len(sts))
		runtime.UnlockOSThread()

		// The computation on every core at once (a run computes GOMAXPROCS
		// rows at a time, and those computations share the caches and the
		// memory bus): each core every structure, from a different one.
		errs := make([]error, cores)
		var wg sync.WaitGroup
		c0 = processCPU()
		for w := range cores {
			wg.Go(func() {
				for k := range sts {
					i := (k + w*len(sts)/cores) % len(sts)
					if _, err := confind.Compute(sts[i], l, true); err != nil && errs[w] == nil {
						errs[w] = fmt.Errorf("%s: %w", paths[i], err)
					}
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		rd.meanAll = (processCPU() - c0).Seconds() * 1e3 / float64(cores*len(sts))

		var tot, ro, de, gm, ratio, per400 []float64
		for i := range per {
			t, g := median(per[i].total), gem[i]
			tot, ro, de = append(tot, t), append(ro, median(per[i].rots)), append(de, median(per[i].degre))
			gm = append(gm, g)
			ratio = append(ratio, t/g)
			per400 = append(per400, t*400/float64(max(1, res[i])))
		}
		rd.tot, rd.ro, rd.de, rd.gem, rd.perFile, rd.per400 = median(tot), median(ro), median(de), median(gm), median(ratio), median(per400)
		if rd.run1, err = runPer(r, 1); err != nil {
			return err
		}
		if rd.runAll, err = runPer(r, cores); err != nil {
			return err
		}
	}
	over := func(f func(round) float64) float64 {
		var v []float64
		for _, rd := range rounds {
			v = append(v, f(rd))
		}
		return median(v)
	}
	list := func(f func(round) float64, format string) string {
		var v []string
		for _, rd := range rounds {
			v = append(v, fmt.Sprintf(format, f(rd)))
		}
		return strings.Join(v, ", ")
	}

	less := func(rd round) float64 { return pyconfindGemmiRatio / (rd.tot / rd.gem) }
	fmt.Printf("bench confind: %d AFDB files from %s, library %s, native-only (MarinFold's settings); one thread, %d rounds of %d passes over the files; medians over the files, then over the rounds\n",
		len(paths), fs.Arg(0), lib, *reps, passes)
	fmt.Printf("  library load (a `foldcorpus confind` process on %s): %.3f s CPU, peak RSS %.0f MiB (goal <= 1 s, <= 300 MiB)\n", filepath.Base(smallest), median(loadCPU), median(loadRSS))
	fmt.Printf("  library load from its compact form %s (texts' sha256 verified): %.3f s CPU, peak RSS %.0f MiB: %.2fx less CPU than the texts\n",
		confind.CompactName, median(compactCPU), median(compactRSS), median(loadCPU)/median(compactCPU))
	fmt.Printf("  per structure, CPU: confind %.2f ms = placement with pruning %.2f + degrees %.2f (+ positions); %.2f ms per 400 residues (goal ~20)\n",
		over(func(rd round) float64 { return rd.tot }), over(func(rd round) float64 { return rd.ro }), over(func(rd round) float64 { return rd.de }),
		over(func(rd round) float64 { return rd.per400 }))
	fmt.Printf("  gemmi %s read_structure of the same files: %.2f ms\n", gemmiVersion, over(func(rd round) float64 { return rd.gem }))
	fmt.Printf("  ratio confind/gemmi: %.2fx of medians, %.2fx median per file (pyconfind: %.1fx, %.1fx)\n",
		over(func(rd round) float64 { return rd.tot / rd.gem }), over(func(rd round) float64 { return rd.perFile }), pyconfindGemmiRatio, pyconfindPerFileRate)
	verdict := "MISS"
	if over(less) >= 30 {
		verdict = "PASS"
	}
	fmt.Printf("  CPU less than pyconfind: %.1fx (through gemmi's read on this machine; rounds: %s), %.1fx against pyconfind's quoted %.3f s median (goal >= 30x): %s\n",
		over(less), list(less, "%.1fx"), pyconfindMedianS*1e3/over(func(rd round) float64 { return rd.tot }), pyconfindMedianS, verdict)
	one, all := over(func(rd round) float64 { return rd.mean }), over(func(rd round) float64 { return rd.meanAll })
	fmt.Printf("  computation alone, mean per structure: %.2f ms on one thread, %.2f ms on each of %d cores at once\n", one, all, cores)
	r1 := func(rd round) float64 { return rd.run1 / rd.mean }
	rn := func(rd round) float64 { return rd.runAll / rd.meanAll }
	verdict = "MISS"
	if over(r1) <= 1.3 && over(rn) <= 1.3 {
		verdict = "PASS"
	}
	fmt.Printf("  whole run (1 worker, file:// rows), CPU per structure (the difference between the files six times and once) against the computation alone in the same round: one core (GOMAXPROCS=1) %.2f ms: %.2fx (rounds: %s); %d cores %.2f ms: %.2fx (rounds: %s) (goal <= 1.3x): %s; the %d-core run against one thread's computation: %.2fx\n",
		over(func(rd round) float64 { return rd.run1 }), over(r1), list(r1, "%.2fx"), cores, over(func(rd round) float64 { return rd.runAll }), over(rn), list(rn, "%.2fx"),
		verdict, cores, over(func(rd round) float64 { return rd.runAll / rd.mean }))
	return nil
}
