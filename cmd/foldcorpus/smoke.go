package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// The deployment's defaults (infra/variables.tf): shard function
// instances, their memory, and object fetches in flight per shard. Each
// instance has 1 vCPU and serves one shard at a time.
const (
	deployedInstances = 100
	deployedMemoryGiB = 2.0
)

// Cloud Functions (2nd gen) bill as Cloud Run, per instance-second while a
// request runs: tier-1 list prices per vCPU-second and per GiB-second.
const (
	usdPerVCPUSecond = 0.000024
	usdPerGiBSecond  = 0.0000025
)

func runSmoke(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("smoke", flag.ContinueOnError)
	var rf runFlags
	rf.register(fs)
	// smoke's own meaning and defaults of the shared flags.
	fs.Lookup("num-docs").Usage = "rows to time: the first N rows of the manifest, processed as one shard"
	rf.numDocs = 100
	fs.Lookup("num-docs").DefValue = "100"
	fs.Lookup("out").Usage = "keep the timed shard's manifest and output under DIR/smoke-* (default: a temporary folder, removed)"
	fs.Lookup("workers").Usage = "ignored: the timed shard runs on one worker; see --instances for the projection"
	instances := fs.Int("instances", deployedInstances, "shard function instances of the deployment (shard_max_instances); the projection uses min(instances, shards)")
	memGiB := fs.Float64("memory-gib", deployedMemoryGiB, "memory of one shard function instance (shard_memory_mib / 1024), for the cost")
	price := fs.Float64("instance-hour-usd", 0, "price of one busy instance-hour (default: 1 vCPU and --memory-gib at Cloud Run tier-1 list prices)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: foldcorpus smoke [--manifest GLOB] [--num-docs N] [--instances N] [flags]\n\n"+
			"Runs the first N rows of the manifest as one shard on one worker, fetching objects as the deployed\n"+
			"shard function does (gs:// through the GCS client, --fetch-concurrency in flight), prints the\n"+
			"per-document latency split, and projects the full manifest's run as deployed: its shards spread\n"+
			"over min(--instances, shards) instances of 1 vCPU, one shard at a time each.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if rf.numDocs <= 0 || *instances <= 0 {
		return &exitError{2, errors.New("--num-docs and --instances must be positive")}
	}
	if *price <= 0 {
		*price = 3600 * (usdPerVCPUSecond + *memGiB*usdPerGiBSecond)
	}
	keep := rf.out != ""
	if !keep {
		d, err := os.MkdirTemp("", "foldcorpus-smoke-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		rf.out = d
	}
	full, err := rf.spec(ctx)
	if err != nil {
		return err
	}
	store := cliStores()
	// The full manifest's size, from its footers only.
	pf, err := planner.Prepare(ctx, planner.Deps{Store: store, NewFormat: formatRegistry.Constructor(ctx, format.Env{Store: store})}, full)
	if err != nil {
		return err
	}
	var total int64
	for _, n := range pf.ShardRows {
		total += n
	}
	// The first N rows of the projected columns, as a one-file manifest.
	var cols []format.Column
	for _, name := range pf.Projection.Columns() {
		c, _ := pf.Schemas[0].Column(name)
		cols = append(cols, c)
	}
	var rows [][]any
	for _, m := range pf.Messages {
		if len(rows) >= rf.numDocs {
			break
		}
		err := manifest.ReadFile(ctx, store, m.Manifest, m.RowGroups, pf.Projection.Columns(), func(r *manifest.Rows) error {
			for _, v := range r.Values {
				if len(rows) < rf.numDocs {
					rows = append(rows, v)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	data, err := manifest.Encode(cols, rows, 0)
	if err != nil {
		return err
	}
	smokeDir := filepath.Join(full.Output, fmt.Sprintf("smoke-%d", time.Now().UnixNano()))
	if err := store.Create(ctx, filepath.Join(smokeDir, "manifest.parquet"), data); err != nil {
		return err
	}
	spec := full
	spec.Manifest = filepath.Join(smokeDir, "manifest.parquet")
	spec.Output = filepath.Join(smokeDir, "out")
	spec.MaxRows = 0
	var res shardfn.Result
	_, err = localrun.Run(ctx, localrun.Config{Spec: spec, Formats: formatRegistry, Workers: 1, FetchConcurrency: rf.fetchConc, Parse: mmcif.ReadInto,
		Store: store, OnShard: func(r shardfn.Result, _ error) { res = r }})
	if err != nil {
		return err
	}
	t := res.Timing
	n := float64(t.Rows)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000/n) }
	a := res.Accounting
	fmt.Printf("smoke: the first %d rows of %s, as one shard on one worker\n", t.Rows, full.Manifest)
	if keep {
		fmt.Printf("  kept: %s\n", res.Shard.Output)
	}
	fmt.Printf("  outcome: %d docs, filtered %s, skipped %d (rows_in %d)\n", a.DocsOut, formatCounts(a.Filtered), a.Skipped, a.RowsIn)
	fmt.Printf("  fetch: %s\n", fetchPath(rows, pf.Projection))
	fmt.Printf("  per-document latency (mean, summed per stage): fetch %s, parse %s, generate %s, write %s\n", ms(t.Fetch), ms(t.Parse), ms(t.Generate), ms(t.Write))
	dps := n / t.Wall.Seconds()
	fmt.Printf("  one worker (fetch concurrency %d): %.2f s wall for %d rows = %.1f docs/s\n", max(rf.fetchConc, 1), t.Wall.Seconds(), t.Rows, dps)
	p := project(pf.ShardRows, *instances, dps)
	fmt.Printf("  full manifest: %d rows in %d shards, over %d instances (min of --instances %d and the shards; 1 vCPU, one shard at a time each)\n",
		total, len(pf.ShardRows), p.instances, *instances)
	fmt.Printf("  projected wall-clock >= %s (the busiest instance's %d rows at %.1f docs/s; a lower bound: no cold starts, no retries)\n",
		roundDur(p.wall), p.maxRows, dps)
	fmt.Printf("  projected cost >= %.3g busy instance-hours x $%.3g = $%.3g (lower bound)\n", p.busy.Hours(), *price, p.busy.Hours()**price)
	return nil
}

// projection is a deployed run's lower-bound wall-clock and busy time.
type projection struct {
	instances int
	maxRows   int64         // rows of the busiest instance
	wall      time.Duration // maxRows at the measured rate
	busy      time.Duration // all rows at the measured rate, summed over instances
}

// project spreads the shards over min(instances, shards) instances, each
// taking the next shard when it is free (largest shards first: the
// makespan of a greedy schedule), every shard at dps documents per second.
func project(shardRows []int64, instances int, dps float64) projection {
	w := min(instances, len(shardRows))
	load := make([]int64, max(w, 1))
	sorted := slices.Clone(shardRows)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	var total int64
	for _, r := range sorted {
		i := slices.Index(load, slices.Min(load))
		load[i] += r
		total += r
	}
	sec := func(rows int64) time.Duration { return time.Duration(float64(rows) / dps * float64(time.Second)) }
	p := projection{instances: w, maxRows: slices.Max(load)}
	p.wall, p.busy = sec(p.maxRows), sec(total)
	return p
}

// fetchPath says where the timed rows' structures came from.
func fetchPath(rows [][]any, proj manifest.Projection) string {
	if proj.URIColumn == "" {
		return "none (inline text or records in the manifest)"
	}
	i := slices.Index(proj.Columns(), proj.URIColumn)
	schemes := map[string]int{}
	for _, r := range rows {
		if u, ok := r[i].(string); ok {
			s, _, found := strings.Cut(u, "://")
			if !found {
				s = "file"
			}
			schemes[s]++
		}
	}
	var parts []string
	for _, s := range slices.Sorted(maps.Keys(schemes)) {
		where := "this machine's disk: the deployed function reads its objects from GCS instead, so this latency is not the deployed one"
		if s == "gs" {
			where = "GCS through the client the shard function uses (from this machine: run smoke in the deployment's region for its latency)"
		}
		parts = append(parts, fmt.Sprintf("%d %s:// objects from %s", schemes[s], s, where))
	}
	return strings.Join(parts, "; ")
}

// roundDur keeps three significant digits or so, without hiding small values.
func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d
}
