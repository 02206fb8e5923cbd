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
	o, err := parseConfindFlags(args)
	if err != nil {
		return err
	}
	paths, _ := filepath.Glob(filepath.Join(o.dir, "*.cif"))
	sort.Strings(paths)
	if len(paths) == 0 {
		return fmt.Errorf("no *.cif files in %s", o.dir)
	}
	tmp, err := os.MkdirTemp("", "bench-confind-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c := &confindBench{ctx: ctx, o: o, paths: paths, tmp: tmp, cores: runtime.GOMAXPROCS(0)}
	if c.lib, err = c.library(); err != nil {
		return err
	}
	if c.self, err = CLI(ctx); err != nil {
		return err
	}
	load, err := c.measureLoad()
	if err != nil {
		return err
	}
	if err := c.prepareRounds(); err != nil {
		return err
	}
	gr, err := startGemmi(ctx, o.python)
	if err != nil {
		return err
	}
	defer gr.close()
	rounds := make([]confindRound, o.reps)
	for r := range rounds {
		if rounds[r], err = c.round(r, gr); err != nil {
			return err
		}
	}
	c.report(load, rounds, gr.version)
	return nil
}

// confindOptions is the command line of `bench confind`.
type confindOptions struct {
	rotlib, synth, template string
	reps                    int
	python                  string
	dir                     string // the AFDB files
}

// parseConfindFlags reads the command line of `bench confind`.
func parseConfindFlags(args []string) (confindOptions, error) {
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
		return confindOptions{}, usageError(err)
	}
	if fs.NArg() != 1 || *reps < 1 {
		fs.Usage()
		return confindOptions{}, usageError(fmt.Errorf("need one DIR and --reps >= 1"))
	}
	return confindOptions{rotlib: *rotlib, synth: *synth, template: *template, reps: *reps, python: *python, dir: fs.Arg(0)}, nil
}

// confindBench is one `bench confind` run's state.
type confindBench struct {
	ctx   context.Context
	o     confindOptions
	paths []string // the *.cif files, sorted
	tmp   string   // the run's temporary folder
	lib   string   // the library folder (after measureLoad: its texts alone)
	self  string   // the foldcorpus CLI
	cores int      // GOMAXPROCS
	// smallest is the smallest file, which the library-load children
	// analyse.
	smallest string
	// l and sts are the library and the structures the rounds compute.
	l   *confind.Library
	sts []*structure.Structure
	// manifests are the whole runs' manifests by copies of the files (1
	// and runCopies).
	manifests map[int]string
}

// confindLoad is the library-load figures, one per rep: CPU seconds and
// peak RSS (MiB) of a child loading the texts, and its compact form.
type confindLoad struct {
	cpu, rss, compactCPU, compactRSS []float64
}

// confindRound is one round's figures.
type confindRound struct {
	tot, ro, de, gem, perFile, per400 float64 // medians over files, ms
	mean, meanAll                     float64 // mean per structure on one thread, and on every core at once, ms
	run1, runAll                      float64 // a run's CPU per structure on one core, and on every core, ms
}

// confindPasses is how many times in a row each file is computed (and
// read by gemmi) in a round.
const confindPasses = 3

// library returns the rotamer library folder: --rotlib, or the synthetic
// one written into c.tmp.
func (c *confindBench) library() (string, error) {
	if c.o.rotlib != "" {
		return c.o.rotlib, nil
	}
	lib := filepath.Join(c.tmp, "rotlib")
	out, err := exec.CommandContext(c.ctx, c.o.python, c.o.synth, "--template", c.o.template, "--out", lib).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("writing the synthetic library (%s): %w\n%s", c.o.synth, err, out)
	}
	return lib, nil
}

// measureLoad measures the library load: children that load it (its texts
// alone, then with their compact form) and analyse the smallest file.
// Afterwards c.lib is the texts alone.
func (c *confindBench) measureLoad() (confindLoad, error) {
	var load confindLoad
	size := int64(-1)
	for _, p := range c.paths {
		if fi, err := os.Stat(p); err == nil && (size < 0 || fi.Size() < size) {
			c.smallest, size = p, fi.Size()
		}
	}
	textDir, compactDir, err := c.libraryForms()
	if err != nil {
		return load, err
	}
	for range c.o.reps {
		m, err := child(c.ctx, c.self, nil, "confind", "--native-only", "--rotlib", textDir, c.smallest)
		if err != nil {
			return load, err
		}
		load.cpu, load.rss = append(load.cpu, m.cpu), append(load.rss, m.rssMiB)
		m, err = child(c.ctx, c.self, nil, "confind", "--native-only", "--rotlib", compactDir, c.smallest)
		if err != nil {
			return load, err
		}
		load.compactCPU, load.compactRSS = append(load.compactCPU, m.cpu), append(load.compactRSS, m.rssMiB)
	}
	c.lib = textDir
	return load, nil
}

// libraryForms makes two folders of the library under c.tmp: the texts
// alone (links to them), and the texts with their compact form (written by
// `foldcorpus confind --compact`), to alternate.
func (c *confindBench) libraryForms() (textDir, compactDir string, err error) {
	textDir, compactDir = filepath.Join(c.tmp, "text"), filepath.Join(c.tmp, "compact")
	for _, d := range []string{textDir, compactDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", err
		}
		for _, n := range []string{"EBL.out", "BEBL.out"} {
			abs, err := filepath.Abs(filepath.Join(c.lib, n))
			if err != nil {
				return "", "", err
			}
			if err := os.Symlink(abs, filepath.Join(d, n)); err != nil {
				return "", "", err
			}
		}
	}
	if out, err := exec.CommandContext(c.ctx, c.self, "confind", "--compact", "--rotlib", compactDir).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("foldcorpus confind --compact: %w\n%s", err, out)
	}
	return textDir, compactDir, nil
}

// prepareRounds loads what the rounds use: the library, the structures,
// and the whole runs' manifests.
//
// Rounds, each of every measurement in a row (the computation on one
// thread beside gemmi's read, the computation on every core, the runs), so
// that each ratio is taken within a round, and the machine's drift (it is
// shared) cancels in it; the figures are the medians over rounds. Within a
// round, each file is computed three times in a row, then read by gemmi
// three times in a row, each side's figure its median; then a pass
// computes every file once, one after the other, as a run computes them
// (their library rows not left in the caches by the structure itself): the
// mean against which the runs are set.
func (c *confindBench) prepareRounds() error {
	var err error
	if c.l, err = confind.LoadLibrary(c.lib); err != nil {
		return err
	}
	c.sts = make([]*structure.Structure, len(c.paths))
	for i, p := range c.paths {
		if c.sts[i], err = mmcif.ReadFile(p); err != nil {
			return err
		}
	}
	return c.writeManifests()
}

// writeManifests writes the manifests of the whole runs (one worker) over
// the files once and six times (the copies under other entry ids), run in
// every round: the difference over the 5n extra structures is the run's
// CPU per structure, without what a run costs once (the library load, the
// report's rendering), which a shard of thousands of rows amortizes. On
// one core (GOMAXPROCS=1: one row at a time), and on every core (a shard's
// rows GOMAXPROCS at a time).
func (c *confindBench) writeManifests() error {
	c.manifests = map[int]string{}
	for _, copies := range []int{1, runCopies} {
		var rows [][]any
		for k := range copies {
			for _, p := range c.paths {
				abs, _ := filepath.Abs(p)
				id := strings.TrimSuffix(filepath.Base(p), ".cif")
				if k > 0 {
					id = fmt.Sprintf("%s-copy%d", id, k)
				}
				rows = append(rows, []any{id, "file://" + abs})
			}
		}
		data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, rows, 0)
		if err != nil {
			return err
		}
		c.manifests[copies] = filepath.Join(c.tmp, fmt.Sprintf("manifest%d.parquet", copies))
		if err := os.WriteFile(c.manifests[copies], data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runPer is a whole run's CPU per structure in round r on procs cores, in
// ms: the difference between the runs over the files runCopies times and
// once.
func (c *confindBench) runPer(r, procs int) (float64, error) {
	var cpu [2]float64
	for k, copies := range []int{1, runCopies} {
		m, err := child(c.ctx, c.self, []string{fmt.Sprintf("GOMAXPROCS=%d", procs)}, "run", "--format", "contacts-v1", "--opt", "rotlib="+c.lib,
			"--manifest", c.manifests[copies], "--out", filepath.Join(c.tmp, fmt.Sprintf("out%d-%d-%d", copies, procs, r)), "--workers", "1")
		if err != nil {
			return 0, err
		}
		cpu[k] = m.cpu
	}
	return (cpu[1] - cpu[0]) / float64((runCopies-1)*len(c.paths)) * 1e3, nil
}

// round measures round r: the computation on one thread beside gemmi's
// read, on every core at once, and the whole runs.
func (c *confindBench) round(r int, gr *gemmiReader) (confindRound, error) {
	var rd confindRound
	if err := c.oneThread(&rd, gr); err != nil {
		return rd, err
	}
	var err error
	if rd.meanAll, err = c.allCores(); err != nil {
		return rd, err
	}
	if rd.run1, err = c.runPer(r, 1); err != nil {
		return rd, err
	}
	if rd.runAll, err = c.runPer(r, c.cores); err != nil {
		return rd, err
	}
	return rd, nil
}

// oneThread measures, on this thread, each file's computation (its
// stages) confindPasses times in a row and then gemmi's read of it, the
// medians over files going into rd; then a pass over all the files, each
// once, as a run computes them (their library rows not left in the caches
// by the structure itself), whose mean goes into rd.mean.
func (c *confindBench) oneThread(rd *confindRound, gr *gemmiReader) error {
	type fileM struct{ total, rots, degre []float64 }
	per := make([]fileM, len(c.paths))
	res := make([]int, len(c.paths))
	gem := make([]float64, len(c.paths))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i, st := range c.sts {
		for range confindPasses {
			tm := confind.Timings{Clock: threadCPU}
			c0 := threadCPU()
			out, err := confind.ComputeTimed(st, c.l, true, &tm)
			if err != nil {
				return fmt.Errorf("%s: %w", c.paths[i], err)
			}
			per[i].total = append(per[i].total, (threadCPU()-c0).Seconds()*1e3)
			per[i].rots = append(per[i].rots, tm.Rotamers.Seconds()*1e3)
			per[i].degre = append(per[i].degre, tm.Degrees.Seconds()*1e3)
			res[i] = len(out.Positions)
		}
		ms, err := gr.read(c.paths[i], confindPasses)
		if err != nil {
			return err
		}
		gem[i] = ms
	}
	c0 := threadCPU()
	for i, st := range c.sts {
		if _, err := confind.Compute(st, c.l, true); err != nil {
			return fmt.Errorf("%s: %w", c.paths[i], err)
		}
	}
	rd.mean = (threadCPU() - c0).Seconds() * 1e3 / float64(len(c.sts))
	var tot, ro, de, gm, ratio, per400 []float64
	for i := range per {
		t, g := median(per[i].total), gem[i]
		tot, ro, de = append(tot, t), append(ro, median(per[i].rots)), append(de, median(per[i].degre))
		gm = append(gm, g)
		ratio = append(ratio, t/g)
		per400 = append(per400, t*400/float64(max(1, res[i])))
	}
	rd.tot, rd.ro, rd.de, rd.gem, rd.perFile, rd.per400 = median(tot), median(ro), median(de), median(gm), median(ratio), median(per400)
	return nil
}

// allCores is the computation's mean CPU per structure on every core at
// once, in ms (a run computes GOMAXPROCS rows at a time, and those
// computations share the caches and the memory bus): each core every
// structure, from a different one.
func (c *confindBench) allCores() (float64, error) {
	errs := make([]error, c.cores)
	var wg sync.WaitGroup
	c0 := processCPU()
	for w := range c.cores {
		wg.Go(func() {
			for k := range c.sts {
				i := (k + w*len(c.sts)/c.cores) % len(c.sts)
				if _, err := confind.Compute(c.sts[i], c.l, true); err != nil && errs[w] == nil {
					errs[w] = fmt.Errorf("%s: %w", c.paths[i], err)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return (processCPU() - c0).Seconds() * 1e3 / float64(c.cores*len(c.sts)), nil
}

// report prints the figures: medians over files, then over rounds, with
// each ratio's rounds and the goals' verdicts.
func (c *confindBench) report(load confindLoad, rounds []confindRound, gemmiVersion string) {
	over := func(f func(confindRound) float64) float64 {
		var v []float64
		for _, rd := range rounds {
			v = append(v, f(rd))
		}
		return median(v)
	}
	list := func(f func(confindRound) float64, format string) string {
		var v []string
		for _, rd := range rounds {
			v = append(v, fmt.Sprintf(format, f(rd)))
		}
		return strings.Join(v, ", ")
	}
	cores := c.cores
	less := func(rd confindRound) float64 { return pyconfindGemmiRatio / (rd.tot / rd.gem) }
	fmt.Printf("bench confind: %d AFDB files from %s, library %s, native-only (MarinFold's settings); one thread, %d rounds of %d passes over the files; medians over the files, then over the rounds\n",
		len(c.paths), c.o.dir, c.lib, c.o.reps, confindPasses)
	fmt.Printf("  library load (a `foldcorpus confind` process on %s): %.3f s CPU, peak RSS %.0f MiB (goal <= 1 s, <= 300 MiB)\n", filepath.Base(c.smallest), median(load.cpu), median(load.rss))
	fmt.Printf("  library load from its compact form %s (texts' sha256 verified): %.3f s CPU, peak RSS %.0f MiB: %.2fx less CPU than the texts\n",
		confind.CompactName, median(load.compactCPU), median(load.compactRSS), median(load.cpu)/median(load.compactCPU))
	fmt.Printf("  per structure, CPU: confind %.2f ms = placement with pruning %.2f + degrees %.2f (+ positions); %.2f ms per 400 residues (goal ~20)\n",
		over(func(rd confindRound) float64 { return rd.tot }), over(func(rd confindRound) float64 { return rd.ro }), over(func(rd confindRound) float64 { return rd.de }),
		over(func(rd confindRound) float64 { return rd.per400 }))
	fmt.Printf("  gemmi %s read_structure of the same files: %.2f ms\n", gemmiVersion, over(func(rd confindRound) float64 { return rd.gem }))
	fmt.Printf("  ratio confind/gemmi: %.2fx of medians, %.2fx median per file (pyconfind: %.1fx, %.1fx)\n",
		over(func(rd confindRound) float64 { return rd.tot / rd.gem }), over(func(rd confindRound) float64 { return rd.perFile }), pyconfindGemmiRatio, pyconfindPerFileRate)
	verdict := "MISS"
	if over(less) >= 30 {
		verdict = "PASS"
	}
	fmt.Printf("  CPU less than pyconfind: %.1fx (through gemmi's read on this machine; rounds: %s), %.1fx against pyconfind's quoted %.3f s median (goal >= 30x): %s\n",
		over(less), list(less, "%.1fx"), pyconfindMedianS*1e3/over(func(rd confindRound) float64 { return rd.tot }), pyconfindMedianS, verdict)
	one, all := over(func(rd confindRound) float64 { return rd.mean }), over(func(rd confindRound) float64 { return rd.meanAll })
	fmt.Printf("  computation alone, mean per structure: %.2f ms on one thread, %.2f ms on each of %d cores at once\n", one, all, cores)
	r1 := func(rd confindRound) float64 { return rd.run1 / rd.mean }
	rn := func(rd confindRound) float64 { return rd.runAll / rd.meanAll }
	verdict = "MISS"
	if over(r1) <= 1.3 && over(rn) <= 1.3 {
		verdict = "PASS"
	}
	fmt.Printf("  whole run (1 worker, file:// rows), CPU per structure (the difference between the files six times and once) against the computation alone in the same round: one core (GOMAXPROCS=1) %.2f ms: %.2fx (rounds: %s); %d cores %.2f ms: %.2fx (rounds: %s) (goal <= 1.3x): %s; the %d-core run against one thread's computation: %.2fx\n",
		over(func(rd confindRound) float64 { return rd.run1 }), over(r1), list(r1, "%.2fx"), cores, over(func(rd confindRound) float64 { return rd.runAll }), over(rn), list(rn, "%.2fx"),
		verdict, cores, over(func(rd confindRound) float64 { return rd.runAll / rd.mean }))
}
