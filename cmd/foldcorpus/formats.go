package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

func runFormats(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("formats", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: foldcorpus formats [FORMAT...]\n\nLists each format (all when none is named): what it reads and its options with\ntheir defaults, as `run`, `smoke` and `doc` accept them with --opt key=value.")
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	names := fs.Args()
	if len(names) == 0 {
		names = formatRegistry.Names()
	}
	for i, name := range names {
		info, err := formatRegistry.Describe(name)
		if err != nil {
			return &exitError{2, err}
		}
		if i > 0 {
			fmt.Println()
		}
		const structures = "mmCIF or PDB format structures, plain or gzip (the --cif-uri-column objects, or --cif-text-column text)"
		input := structures
		if info.Input == format.FromRecord {
			input = "analysis records in the manifest's columns (no fetch)"
			if o := structureOption(name); o != "" {
				input += "; with " + o + "=DIR, " + structures
			}
		}
		if len(info.Options) == 0 {
			fmt.Printf("%s\n  input: %s\n  options: none\n", info.Name, input)
			continue
		}
		fmt.Printf("%s\n  input: %s\n  options:\n", info.Name, input)
		keyWidth := 20 // the longest key of the format sets the column, so its values line up
		for _, o := range info.Options {
			keyWidth = max(keyWidth, len(o.Key))
		}
		for _, o := range info.Options {
			def := o.Default
			if o.Required {
				def = "(required)"
			}
			fmt.Printf("    %-*s %-18s %s\n", keyWidth, o.Key, def, o.Doc)
		}
	}
	return nil
}
