// Command foldcorpus-bench runs foldcorpus's side-by-side benchmarks: each
// kind measures one path of the pipeline against a baseline run in the same
// invocation and prints the ratio. It is a binary of its own so that the
// user's CLI (cmd/foldcorpus) links none of the harnesses and fakes the
// benchmarks need (emulators, fake-gcs-server, the fake Hub, the buildpack
// replay). Kinds that measure a user command run the foldcorpus CLI as a
// whole process (see internal/bench.CLI for how it is found).
//
//	go run ./cmd/foldcorpus-bench KIND [flags] [args]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/foldcorpus/foldcorpus/internal/bench"
)

// kind is one benchmark: `foldcorpus-bench NAME ...` calls run with the
// arguments after NAME. A run error wrapping bench.ErrUsage exits 2.
type kind struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

// kinds is the command table, in the order `foldcorpus-bench help` lists
// it. A new kind is one line here; its harness lives in internal/bench.
var kinds = []kind{
	{"parse", "mmCIF read speed (MB/s) side by side with gemmi, memory, contacts cost", bench.Parse},
	{"docs", "documents/s/core for read + generate over a folder of inputs, split by stage, vs the reference", bench.Docs},
	{"run", "CPU per document of `run` (file:// manifest, report included) and `doc`, whole processes, vs the inner loop and the reference", bench.Run},
	{"confind", "ConFind CPU per AFDB structure (placement with pruning, degrees) vs gemmi's read and pyconfind, library load CPU and RSS, a whole run", bench.Confind},
	{"pdb", "exp222's path per PDB entry (read, curate, assembly 1, ConFind, documents) vs gemmi's read here and exp222's golden timing; the mirror's core-hours projected; the straggler tail", bench.PDB},
	{"inspect", "CPU per file of `inspect --json` (a whole process) vs gemmi's read_structure alone on the same files", bench.Inspect},
	{"shard", "one synthetic shard with injected fetch latency: I/O overlap vs the floor, CPU and sequential; peak memory", bench.Shard},
	{"tokenize", "bio2token-v2 encoder: CPU atoms/s, padding efficiency over AFDB lengths, TPU projection", bench.Tokenize},
	{"select", "generate a synthetic manifest, time `select` (and a plain scan of its columns as baseline), project to 24M rows", bench.Select},
	{"report", "time the report of a synthetic many-shard run, projected vs reading every column", bench.Report},
	{"fetch-manifest", "fetch-manifest against the local fake Hub with injected latency and a resolve quota: wall per file vs the floor; whole-file download side by side", bench.FetchManifest},
	{"function", "the deployed function binary (the buildpack's main): size, cold start, RSS before the first request, what it links", bench.Function},
	{"cloud", "the cloud flow on the emulators with the deployed function binary: shards/s end to end, planner publish rate, lost and duplicated rows, peak memory (--shards N; --faults: the same shards again with faults injected, verified against the fault-free run)", bench.Cloud},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := mainCode(ctx, os.Args[1:])
	stop()
	bench.RemoveBuilt()
	os.Exit(code)
}

// mainCode runs the command line and returns the exit status: 0 on success
// and for help, 2 for usage errors, 1 otherwise.
func mainCode(ctx context.Context, args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	name, args := args[0], args[1:]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		if len(args) == 0 {
			usage(os.Stdout)
			return 0
		}
		// `foldcorpus-bench help KIND` is `foldcorpus-bench KIND -h`.
		name, args = args[0], []string{"-h"}
	}
	k, ok := lookup(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "foldcorpus-bench: unknown benchmark %q\n", name)
		usage(os.Stderr)
		return 2
	}
	err := k.run(ctx, args)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(os.Stderr, "foldcorpus-bench %s: %v\n", k.name, err)
	if errors.Is(err, bench.ErrUsage) {
		return 2
	}
	return 1
}

func lookup(name string) (kind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: foldcorpus-bench KIND [flags] [args]\n\nkinds:")
	for _, k := range kinds {
		fmt.Fprintf(w, "  %-15s %s\n", k.name, k.summary)
	}
	fmt.Fprintln(w, "\n`foldcorpus-bench help KIND` or `foldcorpus-bench KIND -h` shows a kind's flags.")
	fmt.Fprintln(w, "Kinds that run user commands use the foldcorpus CLI: $FOLDCORPUS_CLI, else `foldcorpus` beside this binary, else one built from ./cmd/foldcorpus.")
}
