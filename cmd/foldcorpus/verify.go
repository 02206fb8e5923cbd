package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/verify"
	"github.com/foldcorpus/foldcorpus/planner"
)

const verifyUsage = `usage: foldcorpus verify OUT [flags]

Checks the corpus in OUT (a folder or gs://BUCKET/PREFIX) from its objects
alone, never trusting the ledger: every manifest row accounted for exactly
once across the shard files (a document, a filter by reason or a skip), every
shard with exactly one output under its own name, no stray, temporary or
partial object, each file's accounting agreeing with its rows and its
manifest rows, and with --deep every document's sha1 recomputed. It reads
footers and the entry_id column (document and sha1 with --deep), never whole
files. It prints what is missing (and the commands that rerun it), what is
extra and what disagrees. Exits 0 only when the corpus is whole, 1 when not.

A dedup cut (` + "`foldcorpus dedup`" + `'s OUT, with its dedup_stats.json) is checked
against the run it was cut from: every shard once under its own name, each
output row (dedup_rows.parquet) an existing input row used once, with that
row's entry_id and sha1, and dedup_stats.json's counts recomputed.

The run's own record (OUT/_ledger.jsonl; for a gs:// OUT the local ledger
that ` + "`foldcorpus run`" + ` keeps, or --ledger FILE, or Firestore with --run ID
--project P) names the manifest and how it was split; without one, give
--manifest (and --row-groups-per-shard, --prefix as the run had them).

`

// verifyFlags are verify's own flags.
type verifyFlags struct {
	manifest, ledger, prefix string
	rgPerShard, concurrency  int
	deep, asJSON             bool
}

func runVerify(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	var vf verifyFlags
	var c cloudFlags
	fs.StringVar(&vf.manifest, "manifest", "", "the run's manifest `GLOB` (default: the one the run's record names)")
	fs.StringVar(&vf.ledger, "ledger", "", "the run's ledger `FILE` (default: OUT/"+localledger.FileName+"; for a gs:// OUT, the one `foldcorpus run` keeps here)")
	fs.StringVar(&vf.prefix, "prefix", "", "shard file name prefix (default: the run's, else part)")
	fs.IntVar(&vf.rgPerShard, "row-groups-per-shard", -1, "the run's split (default: the run's, else 0: one shard per manifest file)")
	fs.IntVar(&vf.concurrency, "concurrency", verify.DefaultConcurrency, "files read at once")
	fs.BoolVar(&vf.deep, "deep", false, "recompute every document's sha1 from its bytes (reads the document column)")
	fs.BoolVar(&vf.asJSON, "json", false, "print the report as JSON (for scripts)")
	c.register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), verifyUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if fs.NArg() != 1 {
		return &exitError{2, errors.New("usage: foldcorpus verify OUT [--manifest GLOB] [--deep] [--json] (see `foldcorpus verify -h`)")}
	}
	out, err := verifyOut(fs.Arg(0))
	if err != nil {
		return &exitError{2, err}
	}
	run, shards, fromCloud, err := verifyRecord(ctx, out, vf, &c)
	if err != nil {
		return err
	}
	if run == nil && vf.manifest == "" {
		if done, err := verifyCut(ctx, out, vf); done || err != nil {
			return err
		}
	}
	opts := verify.Options{Out: out, Deep: vf.deep, Concurrency: vf.concurrency, RowGroupsPerShard: max(vf.rgPerShard, 0), Prefix: vf.prefix}
	if run != nil {
		spec, err := specFromRun(*run)
		if err != nil {
			return err
		}
		opts.Manifest, opts.ManifestGeneration, opts.RunID, opts.Ledger = spec.Manifest, spec.ManifestGeneration, run.ID, shards
		if vf.prefix == "" {
			opts.Prefix = spec.Prefix
		}
		if vf.rgPerShard < 0 {
			opts.RowGroupsPerShard = spec.RowGroupsPerShard
		}
	}
	if vf.manifest != "" {
		if opts.Manifest, err = verifyManifest(vf.manifest); err != nil {
			return &exitError{2, err}
		}
		opts.ManifestGeneration = 0
	}
	if opts.Manifest == "" {
		return &exitError{2, fmt.Errorf("no run record for %s names its manifest: pass --manifest GLOB (or --ledger FILE, or --run ID --project P for a cloud run)", out)}
	}
	store := cliStores()
	defer store.Close()
	rep, err := verify.Verify(ctx, store, opts)
	if err != nil {
		return err
	}
	var rerun []string
	if len(rep.Missing) > 0 {
		rerun = rerunAdvice(ctx, store, out, run, rep, fromCloud, c.topic, vf.ledger)
	}
	if vf.asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			*verify.Report
			Whole bool     `json:"whole"`
			Rerun []string `json:"rerun"`
		}{rep, rep.OK(), append([]string{}, rerun...)}); err != nil {
			return err
		}
	} else if err := verify.WriteText(os.Stdout, rep, rerun); err != nil {
		return err
	}
	if !rep.OK() {
		return &exitError{1, fmt.Errorf("%s is not whole: %d shards missing, %d extra objects, %d disagreements", out, len(rep.Missing), len(rep.Extra), len(rep.Disagrees))}
	}
	return nil
}

// verifyOut is OUT as the run names it: an absolute path for a folder,
// gs://BUCKET/PREFIX without a trailing slash.
func verifyOut(out string) (string, error) {
	switch blob.Scheme(out) {
	case "", "file":
		p, err := localblob.Path(out)
		if err != nil {
			return "", err
		}
		return filepath.Abs(p)
	case "gs":
		return strings.TrimRight(out, "/"), nil
	}
	return "", fmt.Errorf("OUT %s: want a folder or gs://BUCKET/PREFIX", out)
}

// verifyManifest is --manifest as `run` resolves it (a folder is its
// *.parquet; a local glob absolute).
func verifyManifest(m string) (string, error) {
	if strings.Contains(m, "://") {
		return m, nil
	}
	return runManifestGlob(m)
}

// verifyRecord reads the run's record, when there is one: the local ledger
// (--ledger, OUT/_ledger.jsonl, or the one `run` keeps for a gs:// OUT), or
// Firestore's (--run ID --project P, then fromCloud). No record is not an
// error.
func verifyRecord(ctx context.Context, out string, vf verifyFlags, c *cloudFlags) (run *ledger.Run, shards []ledger.Shard, fromCloud bool, err error) {
	if c.run != "" && c.project != "" && vf.ledger == "" && !blob.IsLocal(out) {
		l, closeFn, err := c.ledger(ctx)
		if err != nil {
			return nil, nil, false, err
		}
		defer closeFn()
		r, err := l.GetRun(ctx, c.run)
		if err != nil {
			return nil, nil, false, err
		}
		shards, err := l.Shards(ctx, c.run)
		return &r, shards, true, err
	}
	path := vf.ledger
	if path == "" {
		if path, err = (&runFlags{}).ledgerPath(out); err != nil {
			return nil, nil, false, err
		}
	}
	run, shards, err = readLocalLedger(path, c.run)
	return run, shards, false, err
}

// rerunAdvice returns the lines that rerun the missing shards. A local run
// (its ledger a file) resumes with its own command, which processes the
// shards its ledger does not say done; a cloud run takes one Pub/Sub
// message per shard (the planner's messages, as `foldcorpus rerun --gcloud`
// prints them). A shard the ledger says done is skipped by both: those are
// named apart.
func rerunAdvice(ctx context.Context, store blob.Store, out string, run *ledger.Run, rep *verify.Report, fromCloud bool, topic, ledgerFlag string) []string {
	var notDone, done []int
	for _, m := range rep.Missing {
		if m.Ledger == string(ledger.Done) {
			done = append(done, m.Shard)
		} else {
			notDone = append(notDone, m.Shard)
		}
	}
	if run == nil {
		return []string{"no run record: rebuild the missing shards' rows (listed above) with the run's own command"}
	}
	var lines []string
	if len(done) > 0 && fromCloud {
		lines = append(lines, fmt.Sprintf("the ledger says %s done, but storage holds no file for it: a shard message for it is a no-op (the shard worker takes the ledger's word); "+
			"rebuild the run as a new run, or publish the other shards with --partial", shardRange(done)))
	}
	if len(done) > 0 && !fromCloud {
		// A fresh ledger has no shard done: the run processes every shard
		// again, writes the missing files and checks that each existing
		// file holds the same bytes (create-only writes; a shard's bytes
		// are deterministic).
		fresh := filepath.Join(filepath.Dir(out), filepath.Base(out)+".rebuild-ledger.jsonl")
		if !blob.IsLocal(out) {
			if p, err := (&runFlags{}).ledgerPath(out); err == nil {
				fresh = filepath.Join(filepath.Dir(p), "_rebuild-ledger.jsonl")
			}
		}
		lines = append(lines, fmt.Sprintf("the ledger says %s done, but storage holds no file for it: a rerun skips it. "+
			"This command rebuilds with a fresh ledger (every shard is processed again; the missing files are written, the others checked byte for byte):", shardRange(done)))
		lines = append(lines, localRunCommand(*run, out, fresh))
	}
	if fromCloud {
		spec, err := specFromRun(*run)
		var p *planner.Result
		if err == nil {
			spec.AllowDuplicateIDs = true // the messages only; the run was checked when planned
			p, err = planner.Prepare(ctx, planner.Deps{Store: store, NewFormat: formatRegistry.Constructor(ctx, format.Env{Store: store})}, spec)
		}
		for _, i := range rep.MissingShards() {
			if err != nil || i >= len(p.Messages) {
				lines = append(lines, fmt.Sprintf("foldcorpus rerun --run %s --shard %d --gcloud", shellQuote(run.ID), i))
				continue
			}
			cmd, gerr := gcloudCommand(topic, p.Messages[i])
			if gerr != nil {
				cmd = fmt.Sprintf("foldcorpus rerun --run %s --shard %d", shellQuote(run.ID), i)
			}
			lines = append(lines, cmd)
		}
		return lines
	}
	if len(notDone) > 0 {
		lines = append(lines, fmt.Sprintf("%s not done in the ledger: this command resumes exactly those the ledger does not say done:", shardRange(notDone)))
		lines = append(lines, localRunCommand(*run, out, ledgerFlag))
	}
	return lines
}

// localRunCommand is the `foldcorpus run` command of a recorded local run
// (its spec as specFromRun rebuilds it): the same run id, so it resumes.
func localRunCommand(run ledger.Run, out, ledgerFlag string) string {
	spec, err := specFromRun(run)
	if err != nil {
		return "the same `foldcorpus run` command"
	}
	args := []string{"foldcorpus", "run", "--manifest", shellQuote(spec.Manifest), "--out", shellQuote(out), "--format", shellQuote(spec.Format)}
	if spec.TextColumn != "" {
		args = append(args, "--cif-text-column", shellQuote(spec.TextColumn))
	} else if spec.URIColumn != "" {
		args = append(args, "--cif-uri-column", shellQuote(spec.URIColumn))
	}
	if spec.RowGroupsPerShard > 0 {
		args = append(args, "--row-groups-per-shard", fmt.Sprint(spec.RowGroupsPerShard))
	}
	if spec.Prefix != "" && spec.Prefix != "part" {
		args = append(args, "--prefix", shellQuote(spec.Prefix))
	}
	if spec.LenientMissing {
		args = append(args, "--lenient-missing")
	}
	if spec.LenientParse {
		args = append(args, "--lenient-parse")
	}
	if spec.Passthrough != nil {
		args = append(args, "--passthrough", shellQuote(strings.Join(spec.Passthrough, ",")))
	}
	defaults := map[string]string{}
	if info, err := formatRegistry.Describe(spec.Format); err == nil {
		for _, o := range info.Options {
			defaults[o.Key] = o.Default
		}
	}
	keys := make([]string, 0, len(spec.Options))
	for k, v := range spec.Options {
		if d, ok := defaults[k]; !ok || v != d { // the run normalized its options: a default is the option left out
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--opt", shellQuote(k+"="+spec.Options[k]))
	}
	if ledgerFlag != "" {
		args = append(args, "--ledger", shellQuote(ledgerFlag))
	}
	return strings.Join(args, " ")
}

// verifyBeforePublish verifies the run in out before publish uploads it
// (with its record when there is one, else from the files alone) and
// refuses, with the report on w, a corpus that is not whole; with partial,
// missing shards are allowed, nothing else.
func verifyBeforePublish(ctx context.Context, w io.Writer, store blob.Store, out string, run *ledger.Run, shards []ledger.Shard, partial bool) error {
	opts := verify.Options{Out: out}
	if run != nil {
		spec, err := specFromRun(*run)
		if err != nil {
			return err
		}
		opts.Manifest, opts.ManifestGeneration, opts.Prefix, opts.RowGroupsPerShard = spec.Manifest, spec.ManifestGeneration, spec.Prefix, spec.RowGroupsPerShard
		opts.RunID, opts.Ledger = run.ID, shards
	}
	rep, err := verify.Verify(ctx, store, opts)
	if err != nil {
		return fmt.Errorf("verifying %s before publishing: %w", out, err)
	}
	if rep.OK() || partial && rep.OnlyMissing() {
		return nil
	}
	_ = verify.WriteText(w, rep, nil)
	return &exitError{1, fmt.Errorf("%s fails verify (%d shards missing, %d extra objects, %d disagreements; see `foldcorpus verify %s`): not publishing it",
		out, len(rep.Missing), len(rep.Extra), len(rep.Disagrees), out)}
}

// verifyCut verifies out as a dedup cut when it is one (done): the report
// on stdout (--json for scripts), exit 1 when the cut is not whole.
func verifyCut(ctx context.Context, out string, vf verifyFlags) (done bool, err error) {
	store := cliStores()
	defer store.Close()
	if ok, err := verify.IsCut(ctx, store, out); !ok || err != nil {
		return false, err
	}
	rep, err := verify.VerifyCut(ctx, store, verify.CutOptions{Out: out, Deep: vf.deep, Concurrency: vf.concurrency})
	if err != nil {
		return true, err
	}
	if vf.asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			*verify.CutReport
			Whole bool     `json:"whole"`
			Rerun []string `json:"rerun"`
		}{rep, rep.OK(), []string{}}); err != nil {
			return true, err
		}
	} else if err := verify.WriteCutText(os.Stdout, rep); err != nil {
		return true, err
	}
	if !rep.OK() {
		return true, &exitError{1, fmt.Errorf("the cut in %s is not whole: %d shards missing, %d extra objects, %d disagreements", out, len(rep.Missing), len(rep.Extra), len(rep.Disagrees))}
	}
	return true, nil
}
