package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

func init() {
	register("smoke", "run the first N rows as one output file; print the per-document latency split and the projected full-run wall-clock and cost", runSmoke)
}

func runSmoke(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("smoke", flag.ContinueOnError)
	var rf runFlags
	rf.register(fs)
	price := fs.Float64("worker-hour-usd", 0.04, "assumed price of one 1-vCPU worker-hour, for the cost projection")
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if rf.numDocs <= 0 {
		rf.numDocs = 100
	}
	projWorkers := rf.workers
	if projWorkers <= 0 {
		projWorkers = 512
	}
	if rf.out == "" {
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
	store := localblob.Store{}
	// The full manifest's size, from its footers only.
	pf, err := planner.Prepare(ctx, planner.Deps{Store: store}, full)
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
		err := manifest.ReadShard(ctx, store, m.Manifest, m.RowGroups, pf.Projection.Columns(), func(r *manifest.Rows) error {
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
	_, err = localrun.Run(ctx, localrun.Config{Spec: spec, Workers: 1, FetchConcurrency: rf.fetchConc, Parse: mmcif.ReadInto,
		NewFormat: formats.New, OnShard: func(r shardfn.Result, _ error) { res = r }})
	if err != nil {
		return err
	}
	t := res.Timing
	n := float64(t.Rows)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000/n) }
	a := res.Accounting
	fmt.Printf("smoke: %d rows of %s -> %s\n", t.Rows, full.Manifest, res.Shard.Output)
	fmt.Printf("  outcome: %d docs, filtered %v, skipped %d (rows_in %d)\n", a.DocsOut, a.Filtered, a.Skipped, a.RowsIn)
	fmt.Printf("  per-document latency (mean, summed per stage): fetch %s, parse %s, generate %s, write %s\n", ms(t.Fetch), ms(t.Parse), ms(t.Generate), ms(t.Write))
	dps := n / t.Wall.Seconds()
	fmt.Printf("  one worker (fetch concurrency %d): %.2f s wall for %d rows = %.1f docs/s\n", max(rf.fetchConc, 1), t.Wall.Seconds(), t.Rows, dps)
	wall := time.Duration(float64(total) / (float64(projWorkers) * dps) * float64(time.Second))
	cost := float64(projWorkers) * wall.Hours() * *price
	fmt.Printf("  full manifest: %d rows in %d shards; with %d workers: >= %s wall-clock (n_docs / (workers x docs_per_s), a lower bound: no stragglers, no startup)\n",
		total, len(pf.Messages), projWorkers, roundDur(wall))
	fmt.Printf("  cost >= %d workers x %.3g h x $%.3g/worker-hour = $%.3g (lower bound)\n", projWorkers, wall.Hours(), *price, cost)
	return nil
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
