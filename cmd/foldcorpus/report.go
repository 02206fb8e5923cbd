package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"cloud.google.com/go/firestore"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/firestoreledger"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/report"
)

// reportConfig is what `foldcorpus report` takes from its flags.
type reportConfig struct {
	format           string
	contextLength    int
	runID            string
	firestoreProject string
	noStatements     bool
	readDocuments    bool
	quiet            bool
}

func runReport(ctx context.Context, args []string) error {
	fl := flag.NewFlagSet("report", flag.ContinueOnError)
	var cfg reportConfig
	fl.StringVar(&cfg.format, "format", "", "format of the run (default: from the ledger or the files' metadata)")
	fl.IntVar(&cfg.contextLength, "context-length", 0, "context length for context fill (tokens / context length; default: the run's context_length option, else 8192)")
	fl.StringVar(&cfg.runID, "run", "", "run id in the ledger (default: the latest run of the output)")
	fl.StringVar(&cfg.firestoreProject, "firestore-project", "", "gs:// output: read the ledger from Firestore in this project (default: the files' metadata only)")
	fl.BoolVar(&cfg.noStatements, "no-statements", false, "skip the statement mix: leave the document column unread (tokens from num_tokens)")
	fl.BoolVar(&cfg.readDocuments, "read-documents", false, "count the statement mix in the documents themselves, not from the generator's counts in the files' footers (slower; a check of those counts)")
	fl.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus report [flags] DIR\n\nDIR is a run's output folder (a path, file:// or gs:// URI).")
		fl.PrintDefaults()
	}
	if err := parseFlags(fl, args); err != nil {
		return &exitError{2, err}
	}
	if fl.NArg() != 1 {
		fl.Usage()
		return &exitError{2, fmt.Errorf("want one output folder, got %d arguments", fl.NArg())}
	}
	index, err := buildReport(ctx, fl.Arg(0), cfg)
	if err != nil {
		return err
	}
	fmt.Println(index)
	return nil
}

// writeReport builds the report of the run in outDir with the defaults and
// returns the path (or URI) of its index.html. `run` calls it when it
// finishes. Rerunning it replaces a local report with the current one.
func writeReport(ctx context.Context, outDir string) (string, error) {
	return buildReport(ctx, outDir, reportConfig{quiet: true})
}

func buildReport(ctx context.Context, dir string, cfg reportConfig) (string, error) {
	opts := report.Options{Format: cfg.format, ContextLength: cfg.contextLength, SkipDocuments: cfg.noStatements, ReadDocuments: cfg.readDocuments}
	store := cliStores()
	defer store.Close()
	remote := !blob.IsLocal(dir) // a gs:// run: its ledger is Firestore's, if any
	if remote {
		if cfg.firestoreProject != "" {
			if err := firestoreShards(ctx, cfg, &opts); err != nil {
				return "", err
			}
		}
	} else {
		path, err := localblob.Path(dir)
		if err != nil {
			return "", err
		}
		dir = path
		run, shards, err := readLocalLedger(filepath.Join(path, localledger.FileName), cfg.runID)
		if err != nil {
			return "", err
		}
		opts.Run, opts.Shards = run, shards
	}
	rep, err := report.Build(ctx, store, dir, opts)
	if err != nil {
		return "", err
	}
	if !cfg.quiet {
		a := rep.Summary.Accounting
		fmt.Fprintf(os.Stderr, "report: %d files, %d documents; rows in %d, docs out %d, filtered %s, skipped %d; %d failed, %d missing shards; read %d of %d bytes\n",
			rep.Summary.Files, rep.Summary.Documents, a.RowsIn, a.DocsOut, formatCounts(a.Filtered), a.Skipped, a.ShardsFailed, a.ShardsMissing,
			rep.Summary.IO.BytesRead, rep.Summary.IO.BytesTotal)
	}
	if remote {
		if err := rep.WriteStore(ctx, store, dir); err != nil {
			return "", err
		}
		return report.IndexURI(dir), nil
	}
	return rep.WriteDir(ctx, dir)
}

func firestoreShards(ctx context.Context, cfg reportConfig, opts *report.Options) error {
	if cfg.runID == "" {
		return &exitError{2, errors.New("report: --firestore-project needs --run")}
	}
	client, err := firestore.NewClient(ctx, cfg.firestoreProject)
	if err != nil {
		return fmt.Errorf("report: firestore client: %w", err)
	}
	defer client.Close()
	l := firestoreledger.New(client, firestoreledger.Options{})
	run, err := l.GetRun(ctx, cfg.runID)
	if err != nil {
		return err
	}
	shards, err := l.Shards(ctx, cfg.runID)
	if err != nil {
		return err
	}
	opts.Run, opts.Shards = &run, shards
	return nil
}

// readLocalLedger reads the local ledger file without locking it (a run may
// hold its lock while it writes the report): the last record of each run and
// shard wins, and a torn last line is ignored, as localledger replays it. It
// returns the run named runID, or the latest run recorded; none when the
// file does not exist.
func readLocalLedger(path, runID string) (*ledger.Run, []ledger.Shard, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("report: reading ledger: %w", err)
	}
	runs := map[string]ledger.Run{}
	var order []string
	shards := map[string]map[int]ledger.Shard{}
	// Only newline-terminated lines are records; an unterminated tail, or a
	// bad last line, is the torn write of a writer that died.
	lines := bytes.Split(data[:bytes.LastIndexByte(data, '\n')+1], []byte("\n"))
	for i, ln := range lines {
		if len(ln) == 0 {
			continue
		}
		var e struct {
			Run   *ledger.Run   `json:"run"`
			Shard *ledger.Shard `json:"shard"`
		}
		if err := json.Unmarshal(ln, &e); err != nil {
			if i == len(lines)-2 {
				break
			}
			return nil, nil, fmt.Errorf("report: ledger %s line %d: %w", path, i+1, err)
		}
		if e.Run != nil {
			if _, seen := runs[e.Run.ID]; !seen {
				order = append(order, e.Run.ID)
			}
			runs[e.Run.ID] = *e.Run
		}
		if e.Shard != nil {
			if shards[e.Shard.RunID] == nil {
				shards[e.Shard.RunID] = map[int]ledger.Shard{}
			}
			shards[e.Shard.RunID][e.Shard.Index] = *e.Shard
		}
	}
	if len(order) == 0 {
		return nil, nil, nil
	}
	if runID == "" {
		runID = order[len(order)-1]
	}
	run, ok := runs[runID]
	if !ok {
		return nil, nil, fmt.Errorf("report: run %q not in ledger %s (runs: %v)", runID, path, order)
	}
	var out []ledger.Shard
	for i := 0; i < run.Shards; i++ {
		if s, ok := shards[runID][i]; ok {
			out = append(out, s)
		}
	}
	return &run, out, nil
}
