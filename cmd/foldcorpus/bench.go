package main

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// benchMoved is what `foldcorpus bench` says: the benchmarks and the fakes
// they run on (emulators, fake-gcs-server, the fake Hub, the buildpack
// replay) are a binary of their own, so that the CLI users install links
// none of them.
const benchMoved = "the benchmarks are a command of their own, so that this CLI links none of their fakes: " +
	"from the repository, go run ./cmd/foldcorpus-bench KIND [flags] [args] (`go run ./cmd/foldcorpus-bench help` lists the kinds)"

// runBench points a user of the old `foldcorpus bench KIND ...` to
// foldcorpus-bench, naming the command to run: exit 0 for help, 2 (a usage
// error) otherwise.
func runBench(_ context.Context, args []string) error {
	if len(args) > 0 && (isHelp(args[0]) || args[0] == "help") {
		fmt.Fprintln(os.Stdout, "usage: go run ./cmd/foldcorpus-bench KIND [flags] [args]\n\n"+benchMoved)
		return errHelp
	}
	msg := benchMoved
	if len(args) > 0 {
		msg += fmt.Sprintf("; here: go run ./cmd/foldcorpus-bench %s", strings.Join(args, " "))
	}
	return &exitError{2, fmt.Errorf("%s", msg)}
}
