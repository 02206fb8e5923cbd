package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/datacard"
	"github.com/foldcorpus/foldcorpus/internal/dedup"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/report"
	"github.com/foldcorpus/foldcorpus/internal/version"
)

type publishFlags struct {
	partial, create, public bool
	license, prettyName     string
	concurrency, maxCommit  int
	runID, firestore        string
}

func runPublish(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	var pf publishFlags
	fs.BoolVar(&pf.partial, "partial", false, "publish a run with failed or missing shards (the done shards; the card names the others)")
	fs.BoolVar(&pf.create, "create", false, "create the dataset repository when it does not exist (private unless --public)")
	fs.BoolVar(&pf.public, "public", false, "with --create: make the new repository public")
	fs.StringVar(&pf.license, "license", "cc-by-4.0", "the card's license (the Hub's license id): AFDB data are CC-BY-4.0 (cc-by-4.0, the default, also right for a mix);\n"+
		"PDB entries are CC0 (cc0-1.0: a corpus of PDB entries alone may use it)")
	fs.StringVar(&pf.prettyName, "pretty-name", "", "the card's pretty_name and title (default: the repository's name)")
	fs.IntVar(&pf.concurrency, "concurrency", 8, "LFS uploads in flight")
	fs.IntVar(&pf.maxCommit, "max-commit-files", 100, "most files in one commit (the Hub recommends under 100)")
	fs.StringVar(&pf.runID, "run", "", "run id in the ledger (default: the latest run of the output)")
	fs.StringVar(&pf.firestore, "firestore-project", "", "gs:// output: read the ledger from Firestore in this project (needs --run); without it the shard files' names say which shards exist")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: foldcorpus publish OUT hf://datasets/OWNER/NAME[@BRANCH][/PATH] [flags]\n\nOUT is a run's output folder (a path or gs://), or a dedup cut's (`foldcorpus dedup --out`). The shards go to PATH/data/, the report to PATH/report/,\nthe card to README.md. HF_TOKEN (a token with write access) and HF_ENDPOINT are read from the environment.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return &exitError{2, fmt.Errorf("want OUT and an hf:// URI, got %d arguments", fs.NArg())}
	}
	out, target := fs.Arg(0), fs.Arg(1)
	dst, err := hf.ParseSource(target)
	if err != nil {
		return &exitError{2, err}
	}
	opts := hf.OptionsFromEnv(os.Getenv)
	if opts.Token == "" {
		return &exitError{2, errors.New("HF_TOKEN is not set: publishing needs a Hub token with write access")}
	}
	remote := !blob.IsLocal(out) // a gs:// run: no ledger file beside it
	if !remote {
		if out, err = localblob.Path(out); err != nil {
			return &exitError{2, err}
		}
		if out, err = filepath.Abs(out); err != nil {
			return err
		}
	}
	store := cliStores()
	defer store.Close()

	var run *ledger.Run
	var shards []ledger.Shard
	switch {
	case !remote:
		if run, shards, err = readLocalLedger(filepath.Join(out, localledger.FileName), pf.runID); err != nil {
			return err
		}
	case pf.firestore != "":
		var ro report.Options
		if err := firestoreShards(ctx, reportConfig{runID: pf.runID, firestoreProject: pf.firestore}, &ro); err != nil {
			return err
		}
		run, shards = ro.Run, ro.Shards
	}
	rs, err := collectShards(ctx, store, out, run, shards)
	if err != nil {
		return err
	}
	if len(rs.pending) > 0 && !pf.partial {
		return &exitError{1, fmt.Errorf("the run in %s is not complete: %d of %d shards are not done: %s; finish it (rerun the same `foldcorpus run`), or publish the done shards with --partial",
			out, len(rs.pending), rs.total, listPending(rs.pending, 20))}
	}
	if len(rs.files) == 0 {
		return &exitError{1, fmt.Errorf("no done shard in %s to publish", out)}
	}
	cut, err := readPublishCut(ctx, store, out, run)
	if err != nil {
		return err
	}
	ro := report.Options{Run: run, Shards: shards}
	if cut != nil {
		ro.Pattern = cut.pattern
		err = verifyCutBeforePublish(ctx, os.Stderr, store, out, pf.partial)
	} else {
		err = verifyBeforePublish(ctx, os.Stderr, store, out, run, shards, pf.partial)
	}
	if err != nil {
		return err
	}

	rep, err := report.Build(ctx, store, out, ro)
	if err != nil {
		return err
	}
	if cut != nil {
		rep.Files[dedup.StatsFile] = cut.stats // the cut's accounting, beside the report
	}
	prefix := dst.Path
	at := func(p string) string { return path.Join(prefix, p) }
	var files []hf.PublishFile
	for _, u := range rs.files {
		f := hf.PublishFile{Path: at("data/" + path.Base(u)), URI: u}
		if remote {
			// Hashing a bucket's shards means reading them all twice: take
			// the sha256 the ledger recorded when each was written (the
			// Hub checks what is uploaded against it). Local files are
			// hashed: cheap, and byte for byte what is there now.
			f.SHA256 = rs.sha256[u]
		}
		files = append(files, f)
	}
	for _, name := range sortedKeys(rep.Files) {
		files = append(files, hf.PublishFile{Path: at("report/" + name), Data: rep.Files[name]})
	}
	plots := make([]report.Plot, 0, len(rep.Summary.Plots))
	for _, p := range rep.Summary.Plots {
		plots = append(plots, report.Plot{File: at("report/" + p.File), Title: p.Title})
	}
	in := datacard.Input{Repo: dst.Repo, PrettyName: pf.prettyName, License: pf.license, DataFiles: at("data/*.parquet"),
		Run: run, Summary: rep.Summary, Version: version.String(), Plots: plots, Report: at("report"), Partial: rs.pending}
	if run != nil {
		in.Manifest = manifestLock(ctx, store, run.Manifest)
	}
	cardBytes, err := datacard.Build(in)
	if err != nil {
		return err
	}

	client := hf.New(opts)
	fmt.Fprintf(os.Stderr, "publish %s (%d shards, %d report files) to %s on %s\n", out, len(rs.files), len(rep.Files), dst, client.Endpoint())
	prog := &publishProgress{progressLine{w: os.Stderr, tty: isTerminal(os.Stderr)}}
	res, err := hf.Publish(ctx, client, hf.PublishOptions{Repo: dst.Repo, Branch: dst.Revision, Files: files,
		Card: &hf.PublishFile{Path: "README.md", Data: cardBytes}, Exclusive: at("data"), Store: store,
		Create: pf.create, Private: !pf.public, Concurrency: pf.concurrency, MaxCommitFiles: pf.maxCommit, OnProgress: prog.update})
	prog.finish()
	if res != nil {
		st := &client.Stats
		fmt.Fprintf(os.Stderr, "%d files: %d already in the repository, %d uploaded (%s), %d already stored; %d commits %v in %s; %d API calls, %d 429s, %d retried failures\n",
			res.Files, res.AlreadyThere, res.Uploaded, mb(res.UploadBytes), res.Stored, res.Commits, res.CommitSizes, res.Wall.Round(time.Millisecond),
			st.APICalls.Load(), st.TooMany.Load(), st.ServerError.Load())
		for _, d := range res.Diffs {
			fmt.Fprintf(os.Stderr, "  DIFFERS %s\n", d)
		}
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted; rerun the same command to publish the rest: %w", err)
		}
		return err
	}
	fmt.Fprintf(os.Stderr, "verified: every file's size and sha256 at commit %s\n", res.Commit)
	fmt.Println(res.URL)
	return nil
}

// publishProgress shows files committed, bytes uploaded, rate and ETA.
type publishProgress struct{ progressLine }

func (p *publishProgress) update(pr hf.PublishProgress) {
	p.show(pr.Committed >= pr.Files, func() string {
		return fmt.Sprintf("%-7s files %d/%d committed (%d commits)  uploaded %s of %s  %.1f MB/s  ETA %s",
			pr.Stage, pr.Committed, pr.Files, pr.Commits, mb(pr.BytesDone), mb(pr.Bytes), pr.Rate/1e6, pr.ETA.Round(time.Second))
	})
}
