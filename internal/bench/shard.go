package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/faultblob"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localqueue"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/synth"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// shardMeasure is what one child process measured for one Process call.
type shardMeasure struct {
	Rows       int     `json:"rows"`
	Docs       int64   `json:"docs"`
	WallS      float64 `json:"wall_s"`
	CPUS       float64 `json:"cpu_s"` // user+sys during Process
	MaxRSSMiB  float64 `json:"max_rss_mib"`
	MaxInFly   int64   `json:"max_in_flight"`
	FetchS     float64 `json:"fetch_s"`
	ParseS     float64 `json:"parse_s"`
	GenerateS  float64 `json:"generate_s"`
	WriteS     float64 `json:"write_s"`
	OutputSize int     `json:"output_bytes"`
}

func Shard(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench shard", flag.ContinueOnError)
	rows := fs.Int("rows", 2000, "rows in the shard")
	latency := fs.Duration("latency", 50*time.Millisecond, "injected latency per object fetch")
	conc := fs.Int("fetch-concurrency", shardfn.DefaultFetchConcurrency, "fetches in flight")
	seqRows := fs.Int("seq-rows", 200, "rows of the sequential baseline run (extrapolated to --rows; 0: all rows)")
	repeat := fs.Int("repeat", 3, "runs per configuration; the median is reported")
	dir := fs.String("dir", "", "working folder (default: a temporary one, removed after)")
	child := fs.String("child", "", "internal: measure one run over this manifest glob")
	cpuProfile := fs.String("cpuprofile", "", "with --child: write a CPU profile of the Process call to this file")
	memProfile := fs.String("memprofile", "", "with --child: write a heap profile (allocations) after the Process call to this file")
	enforce := fs.Bool("enforce", true, "exit 1 when a target is missed (false: report only, as the smoke test does on tiny, noisy runs)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	if *child != "" {
		return benchShardChild(ctx, *child, *latency, *conc, *cpuProfile, *memProfile)
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "foldcorpus-bench-shard-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	fmt.Printf("bench shard: %d synthetic structures, %s injected per fetch, fetch concurrency %d (each run in its own process; medians of %d runs, peak RSS the largest)\n", *rows, *latency, *conc, max(1, *repeat))
	glob, err := synth.WriteSample(ctx, localblob.Store{}, filepath.Join(*dir, "full"), *rows, 1, false)
	if err != nil {
		return err
	}
	n := *seqRows
	if n <= 0 || n > *rows {
		n = *rows
	}
	seqGlob, err := synth.WriteSample(ctx, localblob.Store{}, filepath.Join(*dir, "seq"), n, 1, false)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	measure1 := func(glob string, lat time.Duration, c int) (shardMeasure, error) {
		var m shardMeasure
		cmd := exec.CommandContext(ctx, self, "shard", "--child", glob, "--latency", lat.String(), "--fetch-concurrency", fmt.Sprint(c))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return m, fmt.Errorf("bench child: %w\n%s", err, stderr.String())
		}
		return m, json.Unmarshal(out, &m)
	}
	// The overlapped run and its no-latency baseline run side by side,
	// --repeat times, so both see the same machine load; medians reported.
	floor := float64(*rows) * latency.Seconds() / float64(*conc)
	var overs, cpus []shardMeasure
	var ratios, lratios []float64
	var rss float64
	for i := 0; i < max(1, *repeat); i++ {
		o, err := measure1(glob, *latency, *conc)
		if err != nil {
			return err
		}
		c, err := measure1(glob, 0, *conc)
		if err != nil {
			return err
		}
		overs, cpus = append(overs, o), append(cpus, c)
		ratios = append(ratios, o.WallS/max(floor, c.CPUS))
		lratios = append(lratios, o.WallS/max(floor, c.WallS))
		rss = max(rss, o.MaxRSSMiB, c.MaxRSSMiB)
	}
	median := func(xs []float64) float64 {
		xs = slices.Clone(xs)
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	byWall := func(ms []shardMeasure) shardMeasure {
		ms = slices.Clone(ms)
		slices.SortFunc(ms, func(a, b shardMeasure) int { return cmp.Compare(a.WallS, b.WallS) })
		return ms[len(ms)/2]
	}
	over, cpu := byWall(overs), byWall(cpus)
	cpuS := median(func() (v []float64) {
		for _, c := range cpus {
			v = append(v, c.CPUS)
		}
		return v
	}())
	seq, err := measure1(seqGlob, *latency, 1)
	if err != nil {
		return err
	}
	ratio, lratio := median(ratios), median(lratios)
	seqFull := seq.WallS * float64(*rows) / float64(seq.Rows)
	per := func(d float64, m shardMeasure) string { return fmt.Sprintf("%.2f ms", 1000*d/float64(m.Rows)) }
	fmt.Printf("  overlapped (latency %s, concurrency %d): wall %.2f s (median), %d docs, max fetches in flight %d\n",
		*latency, *conc, over.WallS, over.Docs, over.MaxInFly)
	fmt.Printf("  I/O floor rows x latency / concurrency:    %.2f s\n", floor)
	fmt.Printf("  measured CPU (same shard, no latency):     %.2f s cpu (median; wall %.2f s)\n", cpuS, cpu.WallS)
	fmt.Printf("  wall / max(floor, cpu):                    %.2fx median of %d paired runs %v (target <= 1.5x)\n", ratio, len(ratios), round2(ratios))
	fmt.Printf("  wall / max(floor, no-latency wall):        %.2fx median %v (CPU measured as wall-clock under the same load)\n", lratio, round2(lratios))
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("  machine load average: %s", la)
	}
	over.MaxRSSMiB = rss
	seqNote := "measured"
	if seq.Rows != *rows {
		seqNote = fmt.Sprintf("measured on %d rows, scaled x%.0f", seq.Rows, float64(*rows)/float64(seq.Rows))
	}
	fmt.Printf("  sequential (concurrency 1):                %.2f s (%s); overlapped is %.1fx faster\n", seqFull, seqNote, seqFull/over.WallS)
	fmt.Printf("  per-row split (overlapped run, summed over rows): fetch %s, parse %s, generate %s, write %s\n",
		per(over.FetchS, over), per(over.ParseS, over), per(over.GenerateS, over), per(over.WriteS, over))
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	overlapOK, memOK := ratio <= 1.5, over.MaxRSSMiB < 512
	fmt.Printf("  peak memory (max RSS of the shard processes, largest of all runs) %.1f MiB (target < 512 MiB): %s; I/O overlap (<= 1.5x): %s\n", over.MaxRSSMiB, verdict(memOK), verdict(overlapOK))
	if (!overlapOK || !memOK) && *enforce {
		return errors.New("targets missed (on a loaded machine compare with the no-latency wall line)")
	}
	return nil
}

// benchShardChild plans the manifest as one shard and processes it once,
// printing a shardMeasure as JSON.
func benchShardChild(ctx context.Context, glob string, latency time.Duration, conc int, cpuProfile, memProfile string) error {
	out, err := os.MkdirTemp("", "foldcorpus-bench-out-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	led, err := localledger.Open(filepath.Join(out, localledger.FileName))
	if err != nil {
		return err
	}
	defer led.Close()
	store := faultblob.New(localblob.Store{}, latency)
	q := localqueue.New()
	newFormat := registry.Builtin().Constructor(ctx, format.Env{Store: store})
	p, err := planner.Plan(ctx, planner.Deps{Store: store, Ledger: led, Publisher: q, NewFormat: newFormat},
		planner.Spec{Manifest: glob, Format: registry.Default, Output: out})
	if err != nil {
		return err
	}
	if len(p.Messages) != 1 {
		return fmt.Errorf("bench: %d shards planned, want 1", len(p.Messages))
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	res, err := shardfn.Process(ctx, shardfn.Deps{Store: store, Ledger: led, Parse: mmcif.ReadInto, NewFormat: newFormat, FetchConcurrency: conc}, p.Messages[0])
	if err != nil {
		return err
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	if memProfile != "" {
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			return err
		}
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	m := shardMeasure{
		Rows: res.Timing.Rows, Docs: res.Accounting.DocsOut, WallS: res.Timing.Wall.Seconds(),
		CPUS:      tv(ru1.Utime) - tv(ru0.Utime) + tv(ru1.Stime) - tv(ru0.Stime),
		MaxRSSMiB: float64(ru1.Maxrss) / 1024, MaxInFly: store.MaxInFlight.Load(),
		FetchS: res.Timing.Fetch.Seconds(), ParseS: res.Timing.Parse.Seconds(),
		GenerateS: res.Timing.Generate.Seconds(), WriteS: res.Timing.Write.Seconds(), OutputSize: res.Bytes,
	}
	return json.NewEncoder(os.Stdout).Encode(m)
}
