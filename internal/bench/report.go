package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/report"
)

// Report writes a synthetic run (default 2,000 shards) into a temporary
// folder, then times, side by side in this process, the report (footer plus
// its columns, plots, page) and the baseline of reading every column of
// every file; it prints medians over the trials and the bytes each read.
func Report(ctx context.Context, args []string) error {
	fl := flag.NewFlagSet("bench report", flag.ContinueOnError)
	shards := fl.Int("shards", 2000, "output files of the synthetic run")
	rows := fl.Int("rows", 4, "rows per shard")
	trials := fl.Int("trials", 5, "trials (medians are printed)")
	keep := fl.String("dir", "", "write the synthetic run here and keep it (default: a temporary folder)")
	if err := fl.Parse(args); err != nil {
		return usageError(err)
	}
	dir := *keep
	if dir == "" {
		tmp, err := os.MkdirTemp("", "foldcorpus-bench-report-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	store := localblob.Store{}
	t0 := time.Now()
	ledgerShards, err := report.WriteSynthetic(ctx, store, dir, report.SynthConfig{Shards: *shards, RowsPerShard: *rows, FailEvery: 500, Missing: true, Seed: 1})
	if err != nil {
		return err
	}
	fmt.Printf("synthetic run: %d shards x %d rows written in %.2f s to %s\n", *shards, *rows, time.Since(t0).Seconds(), dir)
	var tReport, tWrite, tFull, tNumbers []float64
	var sum, sumNumbers report.Summary
	var fullBytes, fullRows int64
	for i := 0; i < *trials; i++ {
		t := time.Now()
		rep, err := report.Build(ctx, store, dir, report.Options{Shards: ledgerShards})
		if err != nil {
			return err
		}
		tReport = append(tReport, time.Since(t).Seconds())
		t = time.Now()
		if _, err := rep.WriteDir(ctx, dir); err != nil {
			return err
		}
		tWrite = append(tWrite, time.Since(t).Seconds())
		sum = rep.Summary
		t = time.Now()
		rep, err = report.Build(ctx, store, dir, report.Options{Shards: ledgerShards, SkipDocuments: true})
		if err != nil {
			return err
		}
		tNumbers = append(tNumbers, time.Since(t).Seconds())
		sumNumbers = rep.Summary
		t = time.Now()
		fullBytes, fullRows, err = report.FullRead(ctx, store, dir)
		if err != nil {
			return err
		}
		tFull = append(tFull, time.Since(t).Seconds())
	}
	med := func(v []float64) float64 {
		s := slices.Clone(v)
		slices.Sort(s)
		return s[len(s)/2]
	}
	fmt.Printf("report (read footer + %v, %d plots, summary, page): median %.3f s (min %.3f) over %d trials, + write %.3f s\n",
		sum.IO.ColumnsRead, len(sum.Plots), med(tReport), slices.Min(tReport), *trials, med(tWrite))
	fmt.Printf("  read %d of %d bytes (%.1f%%) from %d files, %d documents\n",
		sum.IO.BytesRead, sum.IO.BytesTotal, 100*float64(sum.IO.BytesRead)/float64(sum.IO.BytesTotal), sum.Files, sum.Documents)
	fmt.Printf("report without the statement mix (read footer + %v, %d plots): median %.3f s (min %.3f), read %d bytes (%.1f%%)\n",
		sumNumbers.IO.ColumnsRead, len(sumNumbers.Plots), med(tNumbers), slices.Min(tNumbers),
		sumNumbers.IO.BytesRead, 100*float64(sumNumbers.IO.BytesRead)/float64(sumNumbers.IO.BytesTotal))
	fmt.Printf("baseline (read every column of every file, no plots): median %.3f s (min %.3f), %d bytes, %d rows\n",
		med(tFull), slices.Min(tFull), fullBytes, fullRows)
	fmt.Printf("ratio report/baseline: time %.2fx, bytes %.2fx\n", med(tReport)/med(tFull), float64(sum.IO.BytesRead)/float64(fullBytes))
	return nil
}
