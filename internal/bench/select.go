package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/selection"
	"github.com/foldcorpus/foldcorpus/internal/synthmanifest"
)

// Select generates (or reuses) a synthetic manifest and runs the
// selection and a baseline in child processes, so each one's peak RSS
// (DuckDB's native memory included) is its own.
func Select(ctx context.Context, args []string) error {
	fset := flag.NewFlagSet("bench select", flag.ContinueOnError)
	rows := fset.Int("rows", 2_000_000, "manifest rows to generate")
	files := fset.Int("files", 8, "manifest files")
	seed := fset.Uint64("seed", 1, "generator seed")
	dir := fset.String("dir", "", "where the manifest is generated (reused when it matches); default a temp folder, removed after")
	trials := fset.Int("trials", 3, "runs of each measurement; medians are reported")
	threads := fset.Int("threads", 0, "DuckDB threads (0: one per CPU)")
	target := fset.Int("project", 24_000_000, "rows to project the time to")
	scanOnly := fset.String("scan-only", "", "internal: run the baseline scan over this folder and exit")
	genOnly := fset.Bool("generate-only", false, "internal: generate the manifest under --dir and exit")
	if err := fset.Parse(args); err != nil {
		return usageError(err)
	}
	if *scanOnly != "" {
		in, err := filepath.Glob(filepath.Join(*scanOnly, "*.parquet"))
		if err != nil || len(in) == 0 {
			return fmt.Errorf("--scan-only %s: no parquet files (%v)", *scanOnly, err)
		}
		_, err = selection.ScanColumns(ctx, in, *threads)
		return err
	}
	cfg := synthmanifest.Config{Rows: *rows, Files: *files, Seed: *seed}
	manifest := filepath.Join(*dir, "manifest")
	if *genOnly {
		reused, err := ensureManifest(ctx, manifest, cfg)
		fmt.Print(map[bool]string{true: "reused", false: "generated"}[reused])
		return err
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "foldcorpus-bench-select-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	manifest = filepath.Join(*dir, "manifest")
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cliBin, err := CLI(ctx)
	if err != nil {
		return err
	}
	// Generate in a child: a child's peak RSS starts from its parent's
	// (Linux counts the pre-exec image), so this process must stay small.
	t0 := time.Now()
	gen := exec.CommandContext(ctx, self, "select", "--generate-only", "--dir", *dir,
		"--rows", fmt.Sprint(*rows), "--files", fmt.Sprint(*files), "--seed", fmt.Sprint(*seed))
	gen.Stderr = os.Stderr
	how, err := gen.Output()
	if err != nil {
		return fmt.Errorf("generating the manifest: %w", err)
	}
	fmt.Printf("manifest: %d rows in %d files under %s (%s in %.1fs)\n", cfg.Rows, cfg.Files, manifest, how, time.Since(t0).Seconds())
	// The quarter-size subset gives the measured scaling exponent.
	quarter := filepath.Join(*dir, "quarter")
	if cfg.Files >= 4 {
		if err := linkFirstFiles(manifest, quarter, cfg.Files/4); err != nil {
			return err
		}
	}

	th := fmt.Sprint(*threads)
	type result struct{ secs, rssMiB, cpu []float64 }
	measure := func(name, bin string, argv func(i int) []string) (result, error) {
		var r result
		for i := range *trials {
			secs, rss, cpu, err := runChild(ctx, bin, argv(i))
			if err != nil {
				return r, fmt.Errorf("%s: %w", name, err)
			}
			r.secs, r.rssMiB, r.cpu = append(r.secs, secs), append(r.rssMiB, rss), append(r.cpu, cpu)
			fmt.Printf("  %-17s trial %d: %6.2fs wall %6.2fs CPU  peak RSS %5.0f MiB\n", name, i+1, secs, cpu, rss)
		}
		return r, nil
	}
	outDir := func(tag string, i int) string { return filepath.Join(*dir, fmt.Sprintf("out-%s-%d", tag, i)) }
	cleanup := func(tag string) {
		for i := range *trials {
			os.RemoveAll(outDir(tag, i))
		}
	}
	cleanup("full")
	cleanup("quarter")
	base, err := measure("baseline scan", self, func(int) []string {
		return []string{"select", "--threads", th, "--scan-only", manifest}
	})
	if err != nil {
		return err
	}
	sel, err := measure("select", cliBin, func(i int) []string {
		return []string{"select", "--threads", th, "--input", manifest, "--out", outDir("full", i)}
	})
	if err != nil {
		return err
	}
	var stats selection.Stats
	b, err := os.ReadFile(filepath.Join(outDir("full", 0), selection.StatsFile))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &stats); err != nil {
		return err
	}
	cleanup("full")
	var qsel result
	if cfg.Files >= 4 {
		if qsel, err = measure("select (1/4 rows)", cliBin, func(i int) []string {
			return []string{"select", "--threads", th, "--input", quarter, "--out", outDir("quarter", i)}
		}); err != nil {
			return err
		}
		cleanup("quarter")
	}

	ms, mb := median(sel.secs), median(base.secs)
	var self_ syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self_)
	fmt.Printf("(peak RSS of this bench process, the floor of every child's figure: %.0f MiB)\n", float64(self_.Maxrss)/1024)
	fmt.Printf("\nselect: %d rows in -> %d selected in %d shards (%d clusters kept, %d dropped)\n",
		stats.RowsIn, stats.RowsSelected, len(stats.Shards), stats.ClustersKept, stats.ClustersDropped)
	var load [3]float64
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Sscan(string(b), &load[0], &load[1], &load[2])
	}
	fmt.Printf("select:   median %.2fs wall, %.2fs CPU, peak RSS median %.0f MiB (%d trials, DuckDB threads %s, %d CPUs, load average %.1f)\n",
		ms, median(sel.cpu), median(sel.rssMiB), *trials, th, runtime.NumCPU(), load[0])
	fmt.Printf("baseline: median %.2fs wall, %.2fs CPU, peak RSS median %.0f MiB (DuckDB reading the same columns, no work)\n",
		mb, median(base.cpu), median(base.rssMiB))
	fmt.Printf("ratio select/baseline: %.2fx time, %.2fx memory\n", ms/mb, median(sel.rssMiB)/median(base.rssMiB))
	scale := float64(*target) / float64(cfg.Rows)
	fmt.Printf("projection to %d rows: %.0fs wall, %.0fs CPU (linear in rows)", *target, ms*scale, median(sel.cpu)*scale)
	if len(qsel.secs) > 0 {
		nq := float64(cfg.Rows*(cfg.Files/4)) / float64(cfg.Files)
		// The exponent comes from CPU time, which the machine's load disturbs less than wall time.
		e := math.Log(median(sel.cpu)/median(qsel.cpu)) / math.Log(float64(cfg.Rows)/nq)
		fmt.Printf(", %.0fs wall (CPU-time scaling exponent %.2f between %.0f and %d rows, floored at 1)", ms*math.Pow(scale, math.Max(e, 1)), e, nq, cfg.Rows)
		// Memory: the fixed part (runtime, DuckDB) plus the per-row slope measured between the two sizes.
		slope := (median(sel.rssMiB) - median(qsel.rssMiB)) / (float64(cfg.Rows) - nq)
		fmt.Printf("; peak RSS ~%.1f GiB (%.0f MiB + %.0f bytes/row measured), unless capped by --memory-limit (DuckDB spills)",
			(median(sel.rssMiB)+slope*(float64(*target)-float64(cfg.Rows)))/1024, median(sel.rssMiB), slope*1024*1024)
	}
	fmt.Println()
	return nil
}

// ensureManifest generates the manifest unless dir already holds one made
// from the same Config (recorded in dir/config.json).
func ensureManifest(ctx context.Context, dir string, cfg synthmanifest.Config) (reused bool, err error) {
	want, _ := json.Marshal(cfg)
	stamp := filepath.Join(dir, "config.json")
	if got, err := os.ReadFile(stamp); err == nil && string(got) == string(want) {
		return true, nil
	}
	os.RemoveAll(dir)
	if _, err := synthmanifest.Generate(ctx, dir, cfg); err != nil {
		return false, err
	}
	return false, os.WriteFile(stamp, want, 0o644)
}

func linkFirstFiles(src, dst string, n int) error {
	os.RemoveAll(dst)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("manifest-%05d.parquet", i)
		if err := os.Symlink(filepath.Join(src, name), filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	return nil
}

// runChild runs self with argv and returns its wall time, peak RSS (MiB)
// and CPU time (user + system seconds).
func runChild(ctx context.Context, self string, argv []string) (secs, rssMiB, cpu float64, err error) {
	cmd := exec.CommandContext(ctx, self, argv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t := time.Now()
	err = cmd.Run()
	secs = time.Since(t).Seconds()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s %s: %w\n%s", self, strings.Join(argv, " "), err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return secs, 0, 0, errors.New("no rusage for the child")
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	return secs, float64(ru.Maxrss) / 1024, cpu, nil // Linux: KiB
}
