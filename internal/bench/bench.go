// Package bench holds the harnesses behind `foldcorpus-bench KIND`: each
// kind measures one path of the pipeline side by side with a baseline run in
// the same invocation (a Python re-implementation of the reference, gemmi, a
// plain scan) and prints the ratio. Every kind is a function
// func(ctx, args) error that parses its own flags; cmd/foldcorpus-bench
// lists each one in its command table, one line per kind.
//
// Kinds that measure whole processes run the foldcorpus CLI's commands
// (run, doc, inspect, select: the binary users run, found by CLI) and
// re-run the running bench binary (os.Executable) as
// `foldcorpus-bench KIND --child ...` for their own children, so they work
// only inside the foldcorpus-bench command.
package bench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrUsage marks a bad command line (the CLI exits 2 on it).
var ErrUsage = errors.New("usage")

// usageError wraps err as a usage error.
func usageError(err error) error { return fmt.Errorf("%w: %w", ErrUsage, err) }

// median is the median of xs (NaN when empty).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// processCPU is this process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func round2(xs []float64) []string { return roundTo(xs, 2) }

// roundTo formats each of xs with prec decimals.
func roundTo(xs []float64, prec int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.FormatFloat(x, 'f', prec, 64)
	}
	return out
}

// optFlag collects repeated --opt key=value format knobs.
type optFlag map[string]string

func (o optFlag) String() string { return fmt.Sprint(map[string]string(o)) }
func (o optFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	o[k] = val
	return nil
}
