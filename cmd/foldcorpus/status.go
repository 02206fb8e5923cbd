package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
)

func runStatus(ctx context.Context, args []string) error {
	for _, a := range args {
		if a == "--run" || a == "-run" || len(a) > 6 && (a[:6] == "--run=" || a[:5] == "-run=") {
			return runCloudStatus(ctx, args)
		}
	}
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the ledger as JSON: each run with its shard records and whether it is complete")
	ledgerFile := fs.String("ledger", "", "the ledger `FILE` of a run made with run --ledger FILE (default: DIR/"+localledger.FileName+")")
	fs.Usage = func() { statusUsage(fs) }
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	path := *ledgerFile
	switch {
	case path == "" && fs.NArg() == 1:
		path = filepath.Join(fs.Arg(0), localledger.FileName)
	case path != "" && fs.NArg() == 0:
	default:
		return &exitError{2, errors.New("usage: foldcorpus status DIR | --ledger FILE | --run ID --project P (see `foldcorpus status -h`)")}
	}
	runs, shards, err := localledger.Snapshot(path)
	if err != nil {
		where := path
		if *ledgerFile == "" {
			where = fs.Arg(0)
		}
		switch {
		case errors.Is(err, derrors.ErrNotFound) && *ledgerFile != "":
			return fmt.Errorf("--ledger %s: no such ledger file: %w", path, derrors.ErrNotFound)
		case errors.Is(err, derrors.ErrNotFound):
			return fmt.Errorf("%s holds no run (no %s: is it a run's --out folder?): %w", where, localledger.FileName, derrors.ErrNotFound)
		}
		return fmt.Errorf("%s: %w", where, err)
	}
	complete := len(runs) > 0
	if *asJSON {
		complete = printStatusJSON(runs, shards) && complete
	} else {
		for _, r := range runs {
			if !printRunStatus(ctx, r, shards[r.ID]) {
				complete = false
			}
		}
	}
	if !complete {
		return &exitError{1, errors.New("run not complete")}
	}
	return nil
}

// printStatusJSON prints the runs and their shard records as one JSON
// object and reports whether every run is complete.
func printStatusJSON(runs []ledger.Run, shards map[string][]ledger.Shard) bool {
	type runJSON struct {
		ledger.Run
		Complete     bool           `json:"complete"`
		ShardRecords []ledger.Shard `json:"shard_records"`
	}
	all := true
	out := struct {
		Runs []runJSON `json:"runs"`
	}{Runs: []runJSON{}}
	for _, r := range runs {
		done := 0
		for _, s := range shards[r.ID] {
			if s.Status == ledger.Done {
				done++
			}
		}
		out.Runs = append(out.Runs, runJSON{Run: r, Complete: done == r.Shards, ShardRecords: shards[r.ID]})
		all = all && done == r.Shards
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	return all
}

// printRunStatus prints one run and reports whether it is complete.
func printRunStatus(ctx context.Context, r ledger.Run, shards []ledger.Shard) bool {
	var done, failed, missing int
	var tot ledger.Counts
	tot.Filtered = map[string]int64{}
	for _, s := range shards {
		switch s.Status {
		case ledger.Done:
			done++
			tot.RowsIn += s.Counts.RowsIn
			tot.DocsOut += s.Counts.DocsOut
			tot.Skipped += s.Counts.Skipped
			tot.SkippedParse += s.Counts.SkippedParse
			tot.SuspectSeqLen += s.Counts.SuspectSeqLen
			for k, v := range s.Counts.Filtered {
				tot.Filtered[k] += v
			}
		case ledger.Failed, ledger.DeadLettered:
			failed++
		default:
			missing++
		}
	}
	missing += r.Shards - len(shards)
	fmt.Printf("run %s\n  manifest %s\n  format   %s\n  output   %s\n", r.ID, r.Manifest, r.Format, r.Output)
	fmt.Printf("  shards   %d total, %d done, %d failed, %d missing\n", r.Shards, done, failed, missing)
	skipped := "missing objects"
	if tot.SkippedParse > 0 {
		skipped = fmt.Sprintf("%d missing objects, %d that failed to parse", tot.Skipped-tot.SkippedParse, tot.SkippedParse)
	}
	fmt.Printf("  rows     %d in, %d docs out, %d skipped (%s)\n", tot.RowsIn, tot.DocsOut, tot.Skipped, skipped)
	if tot.Skipped > 0 || tot.SuspectSeqLen > 0 {
		store := cliStores()
		for _, n := range rowNotes(ctx, store, shards) {
			fmt.Printf("  %-8s %s\n", n.kind, n.text)
		}
		store.Close()
	}
	reasons := make([]string, 0, len(tot.Filtered))
	for k := range tot.Filtered {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Printf("  filtered %-20s %d\n", k, tot.Filtered[k])
	}
	for _, s := range shards {
		switch s.Status {
		case ledger.Failed, ledger.DeadLettered:
			fmt.Printf("  %s shard %05d (attempts %d, entry %s): %s\n", s.Status, s.Index, s.Attempts, orDash(s.EntryID), s.Error)
			printBadRows(os.Stdout, s)
		case ledger.Pending, ledger.Running:
			if s.LastError == localrun.Interrupted {
				fmt.Printf("  missing shard %05d (interrupted: a rerun resumes it; attempts %d)\n", s.Index, s.Attempts)
				continue
			}
			if s.LastError != "" { // released after a transient failure
				fmt.Printf("  missing shard %05d (%s, attempts %d): last error: %s\n", s.Index, s.Status, s.Attempts, s.LastError)
				continue
			}
			fmt.Printf("  missing shard %05d (%s, attempts %d)\n", s.Index, s.Status, s.Attempts)
		}
	}
	ok := done == r.Shards
	if ok {
		fmt.Println("  COMPLETE")
	} else {
		fmt.Println("  NOT COMPLETE:")
		for _, line := range statusAdvice(r, shards) {
			fmt.Println("    " + line)
		}
	}
	return ok
}

// printBadRows lists a failed shard's bad rows, one line each, and the
// number of those beyond the ledger's bound.
func printBadRows(w io.Writer, s ledger.Shard) {
	if len(s.BadRows) < 2 && s.BadRowsMore == 0 {
		return // the shard's line names its one bad row
	}
	for _, b := range s.BadRows {
		fmt.Fprintf(w, "    bad row %d: entry %s: %s: %s\n", b.Row, orDash(b.EntryID), b.Stage, b.Error)
	}
	if s.BadRowsMore > 0 {
		fmt.Fprintf(w, "    and %d more bad rows (the ledger keeps the first %d)\n", s.BadRowsMore, ledger.MaxBadRows)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
