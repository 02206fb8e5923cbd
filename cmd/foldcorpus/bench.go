//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/foldcorpus/foldcorpus/internal/bench"
)

// benchmarks are the `foldcorpus bench KIND` subcommands; each registers
// itself from its own file with registerBench. The harnesses live in
// internal/bench; a kind's error wrapping bench.ErrUsage exits 2.
var benchmarks = map[string]command{}

func registerBench(name, summary string, run func(ctx context.Context, args []string) error) {
	if _, dup := benchmarks[name]; dup {
		panic("foldcorpus: bench registered twice: " + name)
	}
	benchmarks[name] = command{name, summary, run}
}

func init() {
	register("bench", "measure speed and memory side by side with a baseline (bench KIND ...)", runBench)
}

func runBench(ctx context.Context, args []string) error {
	if len(args) == 0 || isHelp(args[0]) || args[0] == "help" {
		w, err := os.Stderr, error(&exitError{2, fmt.Errorf("missing benchmark kind")})
		if len(args) > 0 {
			w, err = os.Stdout, errHelp
		}
		names := make([]string, 0, len(benchmarks))
		for n := range benchmarks {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintln(w, "usage: foldcorpus bench KIND [flags] [args]\n\nkinds:")
		for _, n := range names {
			fmt.Fprintf(w, "  %-10s %s\n", n, benchmarks[n].summary)
		}
		return err
	}
	b, ok := benchmarks[args[0]]
	if !ok {
		return &exitError{2, fmt.Errorf("unknown benchmark %q", args[0])}
	}
	err := b.run(ctx, args[1:])
	if errors.Is(err, bench.ErrUsage) {
		return &exitError{2, err}
	}
	return err
}
