package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Run measures the commands users run, whole processes, against the inner
// loop (read + generate into a reused structure, what `bench docs` times)
// and the reference, side by side in one invocation: `foldcorpus run` over
// a manifest of file:// URIs to DIR's files (each repeated), its report
// alone, `foldcorpus doc` over the files repeated, and a process that does
// nothing (the baseline every command pays once). CPU is user + system of
// each child process (getrusage), per document.
func Run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench run", flag.ContinueOnError)
	docs := fs.Int("docs", 3680, "manifest rows (documents) of the measured run: DIR's files repeated")
	shards := fs.Int("shards", 4, "manifest files, one shard each")
	docFiles := fs.Int("doc-files", 0, "files given to `foldcorpus doc` (DIR's files repeated; default: --docs / 4)")
	reps := fs.Int("reps", 3, "runs of each measured process (medians are reported)")
	profile := fs.String("cpuprofile", "", "write CPU profiles of the measured children to this folder (run.pprof, doc.pprof, ...)")
	dir := fs.String("dir", "", "working folder (default: a temporary one, removed after)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus-bench run [flags] DIR   (e.g. ../shared/corpus/afdb)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if fs.NArg() != 1 || *docs < 1 || *shards < 1 || *reps < 1 {
		fs.Usage()
		return usageError(fmt.Errorf("need one DIR, --docs, --shards and --reps >= 1"))
	}
	if *docFiles <= 0 {
		*docFiles = max(1, *docs/4)
	}
	ins, err := loadStructureInputs(fs.Arg(0))
	if err != nil {
		return err
	}
	if len(ins) == 0 {
		return fmt.Errorf("no *.cif files under %s", fs.Arg(0))
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "foldcorpus-bench-run-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	glob, err := writeFileManifest(ins, *docs, *shards, filepath.Join(*dir, "manifest"))
	if err != nil {
		return err
	}
	self, err := CLI(ctx)
	if err != nil {
		return err
	}
	f, err := registry.Builtin().New(distancesv2.Name, nil)
	if err != nil {
		return err
	}
	profileEnv := func(name string) []string {
		if *profile == "" {
			return nil
		}
		return []string{"FOLDCORPUS_CPUPROFILE=" + filepath.Join(*profile, name+".pprof")}
	}
	if *profile != "" {
		if err := os.MkdirAll(*profile, 0o755); err != nil {
			return err
		}
	}
	var docArgs []string
	for i := range *docFiles {
		docArgs = append(docArgs, ins[i%len(ins)].name)
	}
	// One rep of every path in turn, so that all see the same load.
	var inner, innerCores, runCPU, reportCPU, docCPU, noopCPU, runWall, runRSS, docRSS []float64
	var st structure.Structure
	for r := range *reps {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := innerLoop(f, ins, *docs, &st)
		if err != nil {
			return err
		}
		inner = append(inner, c.Seconds()*1e3/float64(*docs))
		if c, err = innerLoopCores(f, ins, *docs); err != nil {
			return err
		}
		innerCores = append(innerCores, c.Seconds()*1e3/float64(*docs))
		out := filepath.Join(*dir, fmt.Sprintf("out-%d", r))
		m, err := child(ctx, self, profileEnv("run"), "run", "--manifest", glob, "--out", out)
		if err != nil {
			return err
		}
		runCPU, runWall, runRSS = append(runCPU, m.cpu*1e3/float64(*docs)), append(runWall, m.wall), append(runRSS, m.rssMiB)
		m, err = child(ctx, self, profileEnv("report"), "report", out)
		if err != nil {
			return err
		}
		reportCPU = append(reportCPU, m.cpu*1e3/float64(*docs))
		os.RemoveAll(out)
		m, err = child(ctx, self, profileEnv("doc"), append([]string{"doc"}, docArgs...)...)
		if err != nil {
			return err
		}
		docCPU, docRSS = append(docCPU, m.cpu*1e3/float64(*docFiles)), append(docRSS, m.rssMiB)
		m, err = child(ctx, self, nil, "version")
		if err != nil {
			return err
		}
		noopCPU = append(noopCPU, m.cpu*1e3)
	}
	ref := 1e3 / cadv2Docs.quoted.total // ms per document
	in := median(inner)
	fmt.Printf("bench run: %d AFDB files from %s; run: %d rows (file:// URIs) in %d shards; doc: %d files; %d reps, medians; GOMAXPROCS %d\n",
		len(ins), fs.Arg(0), *docs, *shards, *docFiles, *reps, runtime.GOMAXPROCS(0))
	fmt.Println("  CPU = user + system of the process (getrusage), all cores, per document; the inner loop runs in this process on files in memory")
	fmt.Printf("%-44s %10s %11s %10s %10s\n", "path", "ms CPU/doc", "docs/s/core", "x inner", "x reference")
	row := func(name string, ms float64) {
		fmt.Printf("%-44s %10.3f %11.0f %9.2fx %9.0fx\n", name, ms, 1e3/ms, ms/in, ref/ms)
	}
	row("inner loop (read + generate, reused structure)", in)
	if runtime.GOMAXPROCS(0) > 1 {
		row(fmt.Sprintf("  the same on %d cores at once, as run works", runtime.GOMAXPROCS(0)), median(innerCores))
	}
	row("foldcorpus run (report included)", median(runCPU))
	row("  of which its report (`report` alone)", median(reportCPU))
	row("foldcorpus doc", median(docCPU))
	fmt.Printf("reference: %.1f docs/s/core (%.1f ms/doc; Python + gemmi, see bench docs); goal: run and doc <= 1.2x the inner loop (>= 100x the reference)\n", 1e3/ref, ref)
	fmt.Printf("process baseline (`foldcorpus version`, a process that exits at once): %.1f ms CPU; run wall %.2f s; peak RSS run %.0f MiB, doc %.0f MiB\n",
		median(noopCPU), median(runWall), median(runRSS), median(docRSS))
	verdict := func(name string, xs []float64) string {
		r := median(xs) / in
		if r <= 1.2 {
			return fmt.Sprintf("%s %.2fx PASS", name, r)
		}
		return fmt.Sprintf("%s %.2fx MISS", name, r)
	}
	fmt.Printf("goal (<= 1.2x the inner loop): %s; %s\n", verdict("run", runCPU), verdict("doc", docCPU))
	if runtime.GOMAXPROCS(0) > 1 {
		fmt.Printf("  run against the inner loop on %d cores at once: %.2fx\n", runtime.GOMAXPROCS(0), median(runCPU)/median(innerCores))
	}
	if *profile != "" {
		printBreakdown("run", filepath.Join(*profile, "run.pprof"), median(runCPU), in, runOwnWork)
		printBreakdown("doc", filepath.Join(*profile, "doc.pprof"), median(docCPU), in, docOwnWork)
	}
	return nil
}

// innerLoopCores is innerLoop on every core (GOMAXPROCS goroutines, each
// with its own structure, the documents split between them), as `run`
// works: cores that share a physical core or a cache slow each other, and
// that cost is the hardware's, not the pipeline's.
func innerLoopCores(f format.Format, ins []docsBenchInput, n int) (time.Duration, error) {
	procs := runtime.GOMAXPROCS(0)
	c0 := processCPU()
	var g errgroup.Group
	for p := range procs {
		g.Go(func() error {
			var st structure.Structure
			for i := p; i < n; i += procs {
				in := ins[i%len(ins)]
				fi, err := in.readReusing(&st)
				if err != nil {
					return err
				}
				if _, err := f.Generate(fi); err != nil {
					return fmt.Errorf("%s: %w", in.name, err)
				}
			}
			return nil
		})
	}
	err := g.Wait()
	return processCPU() - c0, err
}

// innerLoop reads and generates n documents (ins repeated) into st and
// returns the process CPU it took.
func innerLoop(f format.Format, ins []docsBenchInput, n int, st *structure.Structure) (time.Duration, error) {
	c0 := processCPU()
	for i := range n {
		in := ins[i%len(ins)]
		p, err := in.readReusing(st)
		if err != nil {
			return 0, err
		}
		if _, err := f.Generate(p); err != nil {
			return 0, fmt.Errorf("%s: %w", in.name, err)
		}
	}
	return processCPU() - c0, nil
}

// writeFileManifest writes n rows (entry_id, gcs_uri = file:// URI of ins
// repeated) as `files` parquet files under dir and returns their glob.
func writeFileManifest(ins []docsBenchInput, n, files int, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cols := []format.Column{{Name: manifest.EntryIDColumn, Type: format.String}, {Name: manifest.DefaultURIColumn, Type: format.String}}
	files = max(1, min(files, n))
	rows := make([][][]any, files)
	for i := range n {
		path, err := filepath.Abs(ins[i%len(ins)].name)
		if err != nil {
			return "", err
		}
		id := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".cif")
		rows[i*files/n] = append(rows[i*files/n], []any{fmt.Sprintf("%s-%d", id, i), "file://" + path})
	}
	for k, rs := range rows {
		data, err := manifest.Encode(cols, rs, 0)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("manifest-%05d.parquet", k)), data, 0o644); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "manifest-*.parquet"), nil
}

// childMeasure is one child process's cost.
type childMeasure struct{ cpu, wall, rssMiB float64 }

// child runs self with argv (stdout discarded) and returns its CPU seconds
// (user + system), wall seconds and peak RSS.
func child(ctx context.Context, self string, env []string, argv ...string) (childMeasure, error) {
	cmd := exec.CommandContext(ctx, self, argv...)
	cmd.Env = append(os.Environ(), env...)
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return childMeasure{}, err
	}
	defer devnull.Close()
	cmd.Stdout = devnull // a file: no copying goroutine in this process
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t := time.Now()
	if err := cmd.Run(); err != nil {
		name := strings.Join(argv[:min(3, len(argv))], " ")
		return childMeasure{}, fmt.Errorf("foldcorpus %s: %w\n%s", name, err, stderr.String())
	}
	wall := time.Since(t).Seconds()
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return childMeasure{}, fmt.Errorf("no rusage for the child")
	}
	return childMeasure{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(), wall: wall, rssMiB: float64(ru.Maxrss) / 1024}, nil
}
