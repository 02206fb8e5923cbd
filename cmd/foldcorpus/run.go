package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/synth"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// optFlags collects repeated --opt key=value flags.
type optFlags map[string]string

func (o optFlags) String() string { return fmt.Sprint(map[string]string(o)) }
func (o optFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	o[k] = val
	return nil
}

// runFlags are the flags shared by run and smoke.
type runFlags struct {
	manifest, out, format, uriCol, textCol, prefix string
	ledger                                         string
	workers, fetchConc, numDocs, rgPerShard        int
	lenient, lenientParse, allowDupIDs             bool
	plddtMin                                       string
	opts                                           optFlags
	passthrough                                    passthroughFlag
}

// passthroughFlag is --passthrough: unset keeps the default set.
type passthroughFlag struct{ cols []string }

func (p *passthroughFlag) String() string {
	if p == nil || p.cols == nil {
		return ""
	}
	return strings.Join(p.cols, ",")
}
func (p *passthroughFlag) Set(v string) error { p.cols = planner.ParsePassthrough(v); return nil }

func (rf *runFlags) register(fs *flag.FlagSet) {
	rf.opts = optFlags{}
	fs.StringVar(&rf.manifest, "manifest", "", "manifest parquet files: a glob (quote it), a folder (its *.parquet), a path or a file:// or gs:// URI; empty: build and use the embedded synthetic sample")
	fs.StringVar(&rf.out, "out", "", "output folder or gs://BUCKET/PREFIX (required); holds the shard files and (local folder) the ledger _ledger.jsonl")
	fs.StringVar(&rf.ledger, "ledger", "", "ledger file (default: OUT/_ledger.jsonl; for a gs:// OUT, .foldcorpus/ledgers/BUCKET/PREFIX/_ledger.jsonl here)")
	fs.StringVar(&rf.format, "format", registry.Default, "document format")
	fs.StringVar(&rf.uriCol, "cif-uri-column", manifest.DefaultURIColumn, "manifest column of per-row structure object URIs (mmCIF or PDB format, plain or gzip)")
	fs.StringVar(&rf.textCol, "cif-text-column", "", "manifest column of inline mmCIF or PDB text (selects the inline path, e.g. cif_content)")
	fs.StringVar(&rf.prefix, "prefix", "part", "output file name prefix: PREFIX-SSSSS-of-TTTTT.parquet")
	fs.IntVar(&rf.workers, "workers", 0, "shards processed at once (default: number of CPUs)")
	fs.IntVar(&rf.fetchConc, "fetch-concurrency", shardfn.DefaultFetchConcurrency, "object fetches in flight per shard")
	fs.IntVar(&rf.numDocs, "num-docs", 0, "process only the first shards covering N rows, a partial run (0: all; sample: its size, default 64)")
	fs.IntVar(&rf.rgPerShard, "row-groups-per-shard", 0, "split manifest files into shards of N row groups (0: one shard per file)")
	fs.BoolVar(&rf.lenient, "lenient-missing", false, "skip (and count) rows whose object is missing instead of failing the shard")
	fs.BoolVar(&rf.lenientParse, "lenient-parse", false, "skip (and count, naming each with its error) rows whose object fails to parse instead of failing the shard; part of the run's identity")
	fs.BoolVar(&rf.allowDupIDs, "allow-duplicate-ids", false, "accept manifest rows that share an entry_id (by default the run is refused, naming both rows: the same document twice, possibly in two splits)")
	fs.StringVar(&rf.plddtMin, "residue-plddt-min", "", "format option residue_plddt_min (contacts-and-distances-v2; default 70)")
	fs.Var(rf.opts, "opt", "format option key=value (repeatable)")
	fs.Var(&rf.passthrough, "passthrough", "manifest columns copied to the output, comma-separated ('' for none; default: "+
		strings.Join(manifest.PassthroughColumns, ",")+", those present)")
}

// spec resolves the flags into a planner spec, writing the embedded sample
// when no manifest is given.
func (rf *runFlags) spec(ctx context.Context) (planner.Spec, error) {
	if rf.out == "" {
		return planner.Spec{}, &exitError{2, errors.New("--out DIR is required")}
	}
	if rf.numDocs < 0 {
		return planner.Spec{}, &exitError{2, fmt.Errorf("--num-docs %d: want a number of rows >= 0 (0: all)", rf.numDocs)}
	}
	out := rf.out
	var err error
	switch blob.Scheme(out) {
	case "", "file":
		if out, err = localblob.Path(out); err == nil {
			out, err = filepath.Abs(out)
		}
		if err != nil {
			return planner.Spec{}, &exitError{2, fmt.Errorf("--out: %w", err)}
		}
	case "gs":
		out = strings.TrimRight(out, "/")
		if rf.manifest == "" {
			return planner.Spec{}, &exitError{2, errors.New("a gs:// --out needs a --manifest (the embedded sample is written locally)")}
		}
	default:
		return planner.Spec{}, &exitError{2, fmt.Errorf("--out %s: want a folder or gs://BUCKET/PREFIX", out)}
	}
	glob := rf.manifest
	if glob == "" {
		n := rf.numDocs
		if n <= 0 {
			n = 64
		}
		glob, err = synth.WriteSample(ctx, localblob.Store{}, filepath.Join(out, "_sample"), n, 4, true)
		if err != nil {
			return planner.Spec{}, err
		}
		fmt.Fprintf(os.Stderr, "no --manifest: using the embedded synthetic sample (%d structures): %s\n", n, glob)
	} else if !strings.Contains(glob, "://") {
		if glob, err = runManifestGlob(glob); err != nil {
			return planner.Spec{}, err
		}
	}
	opts := map[string]string{}
	for k, v := range rf.opts {
		opts[k] = v
	}
	if rf.plddtMin != "" {
		opts["residue_plddt_min"] = rf.plddtMin
	}
	s := planner.Spec{Manifest: glob, Format: rf.format, Options: opts, URIColumn: rf.uriCol,
		TextColumn: rf.textCol, LenientMissing: rf.lenient, LenientParse: rf.lenientParse, Output: out, Prefix: rf.prefix,
		RowGroupsPerShard: rf.rgPerShard, Passthrough: rf.passthrough.cols, AllowDuplicateIDs: rf.allowDupIDs}
	if rf.manifest != "" && rf.numDocs > 0 {
		s.MaxRows = int64(rf.numDocs)
	}
	return s, nil
}

func runRun(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var rf runFlags
	rf.register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), runUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if err := extraArgs("--manifest", fs.Args()); err != nil {
		return err
	}
	spec, err := rf.spec(ctx)
	if err != nil {
		return err
	}
	// gs:// anywhere (manifest, the rows' objects, output) goes through
	// GCS, set up at its first use.
	store := cliStores()
	ledgerPath, err := rf.ledgerPath(spec.Output)
	if err != nil {
		return err
	}
	prog := newProgress(os.Stderr, isTerminal(os.Stderr))
	tr := localrun.NewTracker()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer watchSignals(os.Stderr, tr, cancel, os.Exit)()
	cfg := localrun.Config{
		Spec: spec, Workers: rf.workers, FetchConcurrency: rf.fetchConc, Parse: mmcif.ReadInto,
		Store: store, LedgerPath: ledgerPath, Tracker: tr, Formats: formatRegistry,
		OnPlan:  prog.plan,
		OnRow:   prog.row,
		OnShard: prog.shard,
		OnRetry: func(shard, attempt, attempts int, wait time.Duration, err error) {
			prog.note(fmt.Sprintf("shard %05d: attempt %d of %d stopped on a transient error (%s); retrying in %s",
				shard, attempt, attempts, derrors.Describe(err), wait))
		},
	}
	sum, err := localrun.Run(ctx, cfg)
	prog.stop()
	if sum != nil {
		read, size := sum.Plan.FooterBytes()
		failed, missing := sum.FailedMissing()
		missingNote := ""
		if missing > 0 {
			missingNote = fmt.Sprintf(", %d missing", missing)
		}
		fmt.Fprintf(os.Stderr, "run %s: %d shards (%d done now, %d already done, %d failed%s), %d docs written now%s in %s; manifest footers: %d of %d bytes read\n",
			sum.Plan.Run.ID, sum.Plan.Run.Shards, sum.Done, sum.AlreadyDone, failed, missingNote, sum.Docs, alreadyDocs(sum), sum.Wall.Round(time.Millisecond), read, size)
		for _, f := range sum.Failed {
			if f.Transient {
				fmt.Fprintf(os.Stderr, "  shard %05d missing: attempt %d of %d also stopped on a transient error, so the shard is left for a rerun of the same command to retry: %s\n",
					f.Shard, f.Attempts, f.Attempts, derrors.Describe(f.Err))
				continue
			}
			fmt.Fprintf(os.Stderr, "  shard %05d FAILED: %s\n", f.Shard, derrors.Describe(f.Err))
		}
		printDropped(os.Stderr, sum.Plan)
	}
	incomplete := errors.Is(err, localrun.ErrIncomplete)
	if err != nil && !incomplete {
		if errors.Is(err, context.Canceled) {
			return &exitError{130, errors.New("interrupted: the shards not done wrote nothing; rerun the same command to resume")}
		}
		if o := structureOption(spec.Format); o != "" && spec.Options[o] == "" && errors.Is(err, manifest.ErrMissingColumn) {
			return fmt.Errorf("%s: %w", recordsHint(spec.Format), err)
		}
		return err
	}
	// The report is written also when shards failed: its failures table
	// (entry id and cause per failed shard) is most useful then. The run
	// still exits non-zero.
	// Results go to stdout, progress and diagnostics to stderr.
	if !blob.IsLocal(spec.Output) {
		fmt.Fprintf(os.Stdout, "output: %s; ledger %s (see `foldcorpus status --ledger %s`); no report for a gs:// output\n", spec.Output, ledgerPath, ledgerPath)
		printSkipped(ctx, store, ledgerPath, sum)
		return err
	}
	if rf.ledger != "" {
		fmt.Fprintf(os.Stdout, "output: %s (see `foldcorpus status --ledger %s`)\n", spec.Output, ledgerPath)
	} else {
		fmt.Fprintf(os.Stdout, "output: %s (see `foldcorpus status %s`)\n", spec.Output, rf.out)
	}
	if index, rerr := writeReport(ctx, spec.Output); rerr != nil {
		fmt.Fprintf(os.Stderr, "report: %v\n", rerr)
	} else {
		fmt.Fprintf(os.Stdout, "report: %s\n", index)
	}
	printSkipped(ctx, store, ledgerPath, sum)
	return err
}

// printSkipped ends a run's results with the rows its done shards skipped
// as missing (--lenient-missing) or unparseable (--lenient-parse), and the
// suspect ones (rowNotes), when there are any.
func printSkipped(ctx context.Context, store blob.Store, ledgerPath string, sum *localrun.Summary) {
	if sum == nil || sum.Plan == nil {
		return
	}
	_, shards, err := localledger.Snapshot(ledgerPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "skipped rows: %s\n", derrors.Describe(err))
		return
	}
	for _, n := range rowNotes(ctx, store, shards[sum.Plan.Run.ID]) {
		fmt.Fprintln(os.Stdout, n.text)
	}
}

// ledgerPath is --ledger, or the default for out: OUT/_ledger.jsonl for a
// folder, .foldcorpus/ledgers/BUCKET/PREFIX/_ledger.jsonl (absolute) for a
// gs:// prefix.
func (rf *runFlags) ledgerPath(out string) (string, error) {
	if rf.ledger != "" {
		return filepath.Abs(rf.ledger)
	}
	scheme := blob.Scheme(out)
	if scheme == "" || scheme == "file" {
		return filepath.Join(out, localledger.FileName), nil
	}
	return filepath.Abs(filepath.Join(".foldcorpus", "ledgers", filepath.FromSlash(out[len(scheme+"://"):]), localledger.FileName))
}

// progress shows shards, docs, docs/s and ETA: a redrawn bar on a terminal,
// plain lines (at most every 2 s, and per shard) otherwise.
type progress struct {
	w          io.Writer
	tty        bool
	start      time.Time
	totalRows  int64
	shards     int
	shardsDone atomic.Int64
	rows, docs atomic.Int64
	mu         sync.Mutex
	last       time.Time
}

func newProgress(w io.Writer, tty bool) *progress {
	return &progress{w: w, tty: tty, start: time.Now()}
}

func (p *progress) plan(r *planner.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shards = len(r.Published)
	p.start = time.Now() // rates and the ETA count from here, not from planning
	for _, i := range r.Published {
		p.totalRows += r.ShardRows[i]
	}
	read, size := r.FooterBytes()
	fmt.Fprintf(p.w, "run %s: %d shards, %d to process (%d rows); schema from footers: %d of %d bytes read\n",
		r.Run.ID, r.Run.Shards, len(r.Published), p.totalRows, read, size)
}

// note writes a line between progress lines (ending a terminal's bar).
func (p *progress) note(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) row(outcome string, docs int) {
	p.rows.Add(1)
	p.docs.Add(int64(docs))
	p.draw(false)
}

func (p *progress) shard(res shardfn.Result, err error) {
	if err == nil && !res.AlreadyDone {
		p.shardsDone.Add(1)
	}
	p.draw(true)
}

func (p *progress) draw(force bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	every := 2 * time.Second
	if p.tty {
		every = 100 * time.Millisecond
	}
	if !force && now.Sub(p.last) < every {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rows, docs := p.rows.Load(), p.docs.Load()
	rate := float64(docs) / max(el, 1e-9)
	// An ETA from the first rows is noise (1h28m from one document, 36 s
	// a moment later): it is given once a shard is done or 5% of the rows,
	// from the rate since planning ended.
	eta := "after the first shard"
	if rows > 0 && p.totalRows > 0 && (p.shardsDone.Load() > 0 || rows*20 >= p.totalRows) {
		eta = etaString(time.Duration(el * float64(p.totalRows-rows) / float64(rows) * float64(time.Second)))
	}
	line := fmt.Sprintf("shards %d/%d  docs %d  %.1f docs/s  ETA %s", p.shardsDone.Load(), p.shards, docs, rate, eta)
	if p.tty {
		const width = 30
		filled := 0
		if p.totalRows > 0 {
			filled = int(width * rows / p.totalRows)
		}
		fmt.Fprintf(p.w, "\r[%s%s] %s ", strings.Repeat("#", filled), strings.Repeat(".", width-filled), line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// etaString rounds an ETA to what a reader needs: milliseconds under a
// second, tenths under a minute, seconds above.
func etaString(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func (p *progress) stop() {
	p.mu.Lock()
	planned := p.shards > 0
	p.mu.Unlock()
	if !planned {
		return
	}
	p.draw(true)
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
