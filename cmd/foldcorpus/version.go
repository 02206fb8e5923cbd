package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"github.com/foldcorpus/foldcorpus/internal/version"
)

func runVersion(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if fs.NArg() != 0 {
		return &exitError{2, fmt.Errorf("version takes no arguments")}
	}
	in := version.Read()
	fmt.Printf("foldcorpus %s\n", in.Version)
	fmt.Printf("  go        %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if in.Revision != "" {
		mod := ""
		if in.Modified {
			mod = " (with local changes)"
		}
		if in.FromSource {
			fmt.Printf("  revision  %s%s (the source tree `go run` built from, read at start)\n", in.Revision, mod)
		} else {
			fmt.Printf("  revision  %s%s\n  time      %s\n", in.Revision, mod, in.Time)
		}
	}
	fmt.Printf("  cgo       %s\n", orDash(in.CGO))
	return nil
}
