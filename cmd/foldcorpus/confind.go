package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/fromstructure"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/needcgo"
)

// runConfind prints, per file, pyconfind's .cont text (its default mode: 18
// residue types per position; --native-only: the native type only), or with
// --record one JSON line {"file", then MarinFold's analysis record} (or
// {"file", "error"}). A file that fails is reported and the exit status is 1.
func runConfind(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("confind", flag.ContinueOnError)
	rotlib := fs.String("rotlib", "", "rotamer library folder holding EBL.out and BEBL.out, and rotlib.fcbin if written by --compact (required)")
	compact := fs.Bool("compact", false, "parse the library's EBL.out and BEBL.out and write their compact form DIR/rotlib.fcbin (checksummed against them), which loaders then read instead; takes no FILE")
	native := fs.Bool("native-only", false, "try each position's native residue type only (MarinFold's setting)")
	record := fs.Bool("record", false, "print MarinFold's analysis record (native-only) as one JSON line per file")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus confind [--native-only] [--record] --rotlib DIR FILE...\n       foldcorpus confind --compact --rotlib DIR")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if *compact {
		if *rotlib == "" || fs.NArg() > 0 || *native || *record {
			fs.Usage()
			return &exitError{2, fmt.Errorf("--compact wants --rotlib DIR alone")}
		}
		lib, path, err := confind.WriteCompact(*rotlib)
		if err != nil {
			return err
		}
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %d bytes, %d residues, %d CONF rows\n", path, fi.Size(), lib.Residues(), lib.ConfRows)
		return nil
	}
	if *rotlib == "" || fs.NArg() == 0 {
		fs.Usage()
		return &exitError{2, fmt.Errorf("--rotlib and at least one file are required")}
	}
	if !confind.ExactAtan2 { // the angles need glibc's atan2
		return needcgo.Refuse("confind")
	}
	lib, err := confind.LoadLibrary(*rotlib)
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	failed := 0
	for _, path := range fs.Args() {
		if err := ctx.Err(); err != nil {
			return err
		}
		text, err := confindFile(path, lib, *native, *record)
		if err != nil {
			failed++
			fmt.Fprintf(os.Stderr, "foldcorpus confind: %v\n", err)
		}
		out.WriteString(text)
	}
	if failed > 0 {
		return &exitError{1, fmt.Errorf("%d of %d files failed", failed, fs.NArg())}
	}
	return nil
}

// confindFile is one file's output; with record, an error is also written
// as a JSON line.
func confindFile(path string, lib *confind.Library, native, record bool) (string, error) {
	st, err := mmcif.ReadFile(path)
	if err != nil {
		return recordLine(path, "", err, record), err
	}
	if !record {
		r, err := confind.Compute(st, lib, native)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return r.ContText(), nil
	}
	a, err := confind.AnalyzeNative(st, path, lib)
	if err != nil {
		return recordLine(path, "", err, true), err
	}
	js, err := fromstructure.RecordJSON(a)
	if err != nil {
		return "", err
	}
	return recordLine(path, js, nil, true), nil
}

func recordLine(path, js string, err error, record bool) string {
	if !record {
		return ""
	}
	file := fmt.Sprintf("{%q:%q", "file", path)
	if err != nil {
		msg := err.Error()
		var ae *confind.AnalysisError
		if errors.As(err, &ae) {
			msg = ae.PyType() + ": " + ae.Msg
		}
		return file + fmt.Sprintf(",%q:%q}\n", "error", msg)
	}
	return file + "," + js[1:] + "\n"
}
