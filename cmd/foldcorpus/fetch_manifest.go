package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/planner"
)

type fetchFlags struct {
	out, columns, drop, runSpec, format string
	concurrency                         int
}

func runFetchManifest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("fetch-manifest", flag.ContinueOnError)
	var ff fetchFlags
	fs.StringVar(&ff.out, "out", "", "output folder or gs://BUCKET/PREFIX (required): one parquet per source file at its repository path, and the lock "+hf.LockName)
	fs.StringVar(&ff.columns, "columns", "", "comma-separated columns to keep (default: every column but those in --drop)")
	fs.StringVar(&ff.drop, "drop", "cif_content", "comma-separated columns to leave out when --columns is not given")
	fs.IntVar(&ff.concurrency, "concurrency", 16, "files fetched at once")
	fs.StringVar(&ff.runSpec, "run-spec", "manifest.run.json", "bucket output: name of the run spec written last under --out (starts the planner once); empty: none")
	fs.StringVar(&ff.format, "format", registry.Default, "bucket output: the run spec's format")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: foldcorpus fetch-manifest hf://datasets/OWNER/NAME[@REV][/PATH] --out DIR|gs://BUCKET/PREFIX [flags]\n\nHF_TOKEN (a Hub token) and HF_ENDPOINT (the Hub's address) are read from the environment.")
		fs.PrintDefaults()
	}
	// The URI may come before or after the flags.
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return &exitError{2, err}
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) != 1 || ff.out == "" {
		fs.Usage()
		return &exitError{2, errors.New("want one hf:// URI and --out")}
	}
	src, err := hf.ParseSource(pos[0])
	if err != nil {
		return &exitError{2, err}
	}
	cols := hf.Columns{Drop: splitList(ff.drop)}
	if ff.columns != "" {
		cols = hf.Columns{Keep: splitList(ff.columns)}
	}
	out := ff.out
	bucket := !blob.IsLocal(out)
	if !bucket {
		if out, err = filepath.Abs(out); err != nil {
			return err
		}
	}
	if !bucket {
		// A killed fetch can leave temporary files (never a partial file
		// under a final name): remove them before fetching again.
		if err := removeTemps(out); err != nil {
			return err
		}
	}
	store := cliStores()
	defer store.Close()
	client := hf.New(hf.OptionsFromEnv(os.Getenv))
	fmt.Fprintf(os.Stderr, "fetch-manifest %s from %s into %s (token: %v)\n", src, client.Endpoint(), out, os.Getenv("HF_TOKEN") != "")
	prog := &fetchProgress{progressLine{w: os.Stderr, tty: isTerminal(os.Stderr)}}
	res, err := hf.Fetch(ctx, client, hf.FetchOptions{Source: src, Out: out, Store: store, Columns: cols,
		Concurrency: ff.concurrency, OnProgress: prog.update})
	prog.finish()
	if res != nil {
		st := &client.Stats
		fmt.Fprintf(os.Stderr, "commit %s: %d files (%d fetched now, %d already done, %d failed) in %s; read %s of %s (%.2f%%) in %d range reads; %d resolves, %d API calls, %d 429s, %d retried failures\n",
			res.Lock.Revision, len(res.Lock.Files), res.Fetched, res.AlreadyDone, len(res.Failed), res.Wall.Round(time.Millisecond),
			mb(res.BytesRead), mb(res.SourceBytes), 100*float64(res.BytesRead)/float64(max(res.SourceBytes, 1)), st.RangeReads.Load(),
			st.Resolves.Load(), st.APICalls.Load(), st.TooMany.Load(), st.ServerError.Load())
		for _, f := range res.Failed {
			fmt.Fprintf(os.Stderr, "  FAILED %s: %v\n", f.Path, f.Err)
		}
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted; rerun the same command to fetch the rest: %w", err)
		}
		return err
	}
	glob, gerr := manifestGlob(out, res.Lock)
	if !bucket || ff.runSpec == "" {
		if gerr == nil {
			fmt.Fprintf(os.Stderr, "manifest: %s (foldcorpus select --input '%s' ..., or foldcorpus run --manifest '%s' ...)\n", glob, glob, glob)
		}
		return nil
	}
	if gerr != nil {
		return fmt.Errorf("no run spec written: %w", gerr)
	}
	specURI, err := writeRunSpec(ctx, store, out, ff.runSpec, planner.RunSpec{Manifest: glob, Format: ff.format})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "run spec %s written last (manifest %s): it starts the planner once; a deployment that starts runs on bare parquet files (trigger_parquet = true) also starts one per file\n", specURI, glob)
	return nil
}

// writeRunSpec writes the run spec (planner.RunSpec, which the planner
// function reads) under out, create-only; an identical spec already there
// (a rerun) is fine.
func writeRunSpec(ctx context.Context, store blob.Store, out, name string, spec planner.RunSpec) (string, error) {
	if !strings.HasSuffix(name, planner.RunSpecSuffix) || strings.Contains(name, "/") {
		return "", fmt.Errorf("--run-spec %q: want a plain NAME.run.json", name)
	}
	data, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return "", err
	}
	uri := strings.TrimRight(out, "/") + "/" + name
	return uri, store.Create(ctx, uri, append(data, '\n'))
}

// manifestGlob returns OUT/DIR/*.parquet when every locked file is in one
// folder (the planner's globs match in the last element only).
func manifestGlob(out string, l *hf.Lock) (string, error) {
	dir := path.Dir(l.Files[0].Path)
	for _, f := range l.Files {
		if path.Dir(f.Path) != dir {
			return "", fmt.Errorf("the files are in several folders (%s, %s): fetch one folder (hf://datasets/%s/FOLDER) per manifest", dir, path.Dir(f.Path), l.Repo)
		}
	}
	out = strings.TrimRight(out, "/")
	if dir == "." {
		return out + "/*.parquet", nil
	}
	return out + "/" + dir + "/*.parquet", nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// fetchProgress shows files, bytes, resolves left in the Hub's window and
// the ETA.
type fetchProgress struct{ progressLine }

func (f *fetchProgress) update(p hf.Progress) {
	f.show(p.Done+p.Skipped+p.Failed >= p.Files, func() string {
		left := "?"
		if p.ResolvesLeft >= 0 {
			left = fmt.Sprintf("%d (window resets in %s)", p.ResolvesLeft, p.ResetIn.Round(time.Second))
		}
		return fmt.Sprintf("files %d/%d (%d already done, %d failed)  read %s of %s  resolves left %s  ETA %s",
			p.Done+p.Skipped, p.Files, p.Skipped, p.Failed, mb(p.BytesRead), mb(p.SourceBytes), left, p.ETA.Round(time.Second))
	})
}

// removeTemps removes the temporary files of killed writers in every folder
// under dir (a missing dir is fine).
func removeTemps(dir string) error {
	err := filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		_, err = localblob.RemoveTemps(p)
		return err
	})
	if errors.Is(err, iofs.ErrNotExist) {
		return nil
	}
	return err
}
