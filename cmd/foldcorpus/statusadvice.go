package main

import (
	"flag"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// statusUsage is `status -h`: the local flags, then the flags of a cloud
// run's status (status --run ID), which are parsed by the cloud command.
func statusUsage(fs *flag.FlagSet) {
	w := fs.Output()
	fmt.Fprint(w, `usage: foldcorpus status DIR | --ledger FILE | --run ID --project P [flags]

Shows a run from its ledger: shards done, failed (entry id, row and error),
missing, filter counts, and what to do next. Exits 0 only when the run is
complete.

local runs (status DIR, or --ledger FILE for `+"`run --ledger FILE`"+`):
`)
	fs.PrintDefaults()
	fmt.Fprint(w, "\ncloud runs (status --run ID; Firestore ledger):\n")
	cloud := flag.NewFlagSet("status", flag.ContinueOnError)
	cloud.SetOutput(w)
	var c cloudFlags
	c.register(cloud)
	cloud.PrintDefaults()
}

// statusAdvice says what to do about an incomplete run, one line per kind
// of shard not done: failed shards fail again on a rerun; shards stopped by
// a transient error, or interrupted, resume on a rerun, and so do the
// shards an interrupted run had not started yet; shards never started after
// the last started one, in a run that was not interrupted, are what a
// --num-docs run leaves.
func statusAdvice(r ledger.Run, shards []ledger.Shard) []string {
	var failed, retry, neverStarted []int
	lastStarted := -1
	recorded := map[int]bool{}
	for _, s := range shards {
		recorded[s.Index] = true
		if s.Status != ledger.Pending || s.Attempts > 0 || s.LastError != "" {
			lastStarted = max(lastStarted, s.Index)
		}
	}
	for _, s := range shards {
		switch {
		case s.Status == ledger.Failed:
			failed = append(failed, s.Index)
		case s.Status == ledger.Done:
		case s.Status == ledger.Pending && s.Attempts == 0 && s.LastError == "" && s.Index > lastStarted:
			neverStarted = append(neverStarted, s.Index)
		default: // running (an interrupted claim), released after a transient error, dead-lettered
			retry = append(retry, s.Index)
		}
	}
	for i := 0; i < r.Shards; i++ {
		if !recorded[i] {
			neverStarted = append(neverStarted, i)
		}
	}
	if len(retry) > 0 {
		// An interrupted run (its claimed shards released, or left
		// running by a kill) also leaves the shards it had not started
		// yet: a rerun of the same command does them all, --num-docs or not.
		retry = append(retry, neverStarted...)
		neverStarted = nil
	}
	var out []string
	if n := len(failed); n > 0 {
		out = append(out, fmt.Sprintf("%d shard(s) failed permanently on the bad rows listed above: rerunning fails them again. "+
			"Fix or remove those rows in the manifest (or add --lenient-missing if their objects are missing, --lenient-parse if they fail to parse) and build into a new --out: "+
			"a changed manifest or option is a different run.", n))
	}
	if n := len(retry); n > 0 {
		out = append(out, fmt.Sprintf("%d shard(s) were interrupted, stopped on a transient error or not started yet: rerun the same `foldcorpus run` command to resume them.", n))
	}
	if n := len(neverStarted); n > 0 {
		out = append(out, fmt.Sprintf("%d shard(s) (%s) were never started: a run with --num-docs processes only its first shards, and rerunning it processes no more; "+
			"rerun without --num-docs (or with a larger N) to process them. After an interruption, rerun the same command.", n, shardRange(neverStarted)))
	}
	return out
}

// shardRange writes sorted shard indices as "00002" or "00002-00007" (or a
// list when not contiguous).
func shardRange(idx []int) string {
	if len(idx) == 1 {
		return fmt.Sprintf("shard %05d", idx[0])
	}
	if idx[len(idx)-1]-idx[0] == len(idx)-1 {
		return fmt.Sprintf("shards %05d-%05d", idx[0], idx[len(idx)-1])
	}
	s := "shards"
	for i, x := range idx {
		if i == 8 {
			return s + fmt.Sprintf(" and %d more", len(idx)-8)
		}
		s += fmt.Sprintf(" %05d", x)
	}
	return s
}
