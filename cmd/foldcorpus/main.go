// Command foldcorpus builds training corpora for protein language models from
// predicted and experimental structures. Run `foldcorpus help` for commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sort"
	"syscall"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// command is one subcommand. Each lives in its own file and registers itself
// in an init function of that file.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

// exitError carries a specific exit status out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: foldcorpus COMMAND [flags] [args]   (flags may come before or after the args)\n\ncommands:")
	names := make([]string, 0, len(commands))
	width := 0
	for n := range commands {
		names = append(names, n)
		width = max(width, len(n))
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, n, commands[n].summary)
	}
	fmt.Fprintln(w, "\n`foldcorpus help COMMAND` or `foldcorpus COMMAND -h` shows a command's flags.")
}

// errHelp, returned by a command, means it printed its help: exit status 0.
var errHelp = flag.ErrHelp

// isHelp reports whether a is a request for help.
func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// parseFlags parses args into fs with flags allowed anywhere among the
// arguments, as in `foldcorpus status DIR --json`; "--" ends the flags.
// Every command parses its flags with it. A help flag prints the usage on
// stdout and returns flag.ErrHelp, which main turns into exit status 0.
func parseFlags(fs *flag.FlagSet, args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if isHelp(a) {
			fs.SetOutput(os.Stdout)
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	// Parsing "--" alone sets fs.Args() to the positional arguments and
	// leaves the flags already set as they are.
	return fs.Parse(append([]string{"--"}, pos...))
}

func main() {
	os.Exit(mainCode(os.Args[1:]))
}

// mainCode runs the command line and returns the exit status: 0 on success
// and for help, 2 for usage errors, 1 (or the command's own) otherwise.
func mainCode(args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	name := args[0]
	args = args[1:]
	if name == "help" || isHelp(name) {
		if len(args) == 0 {
			usage(os.Stdout)
			return 0
		}
		// `foldcorpus help CMD` is `foldcorpus CMD -h`.
		name, args = args[0], []string{"-h"}
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "foldcorpus: unknown command %q\n", name)
		usage(os.Stderr)
		return 2
	}
	if path := os.Getenv("FOLDCORPUS_CPUPROFILE"); path != "" {
		defer startCPUProfile(path)() // `bench run --cpuprofile` profiles the commands it measures
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cmd.run(ctx, args)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(os.Stderr, "foldcorpus %s: %s\n", cmd.name, derrors.Describe(err))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// startCPUProfile writes a CPU profile of this process to path until the
// returned function is called, which also writes the allocations profile
// to $FOLDCORPUS_MEMPROFILE when set.
func startCPUProfile(path string) (stop func()) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "foldcorpus: FOLDCORPUS_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		if mem := os.Getenv("FOLDCORPUS_MEMPROFILE"); mem != "" {
			if mf, err := os.Create(mem); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(mf, 0)
				mf.Close()
			}
		}
	}
}
