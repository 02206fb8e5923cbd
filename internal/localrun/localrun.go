// Package localrun runs a whole corpus build on one machine with the same
// planner and shardfn code as the cloud: local files and file:// URIs, an
// in-process queue, and a ledger file in the output folder, so a rerun after
// any interruption processes only the shards not done.
package localrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/inprocess"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localqueue"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// Config is a local run.
type Config struct {
	// Spec is the run; Spec.Output is a local folder, or a gs:// prefix
	// when Store serves gs:// (then LedgerPath is required).
	Spec planner.Spec
	// LedgerPath is the ledger file (Spec.Output/_ledger.jsonl when empty;
	// required when Spec.Output is not a local folder).
	LedgerPath string
	// Workers is the number of shards processed at once (GOMAXPROCS when 0).
	Workers int
	// FetchConcurrency bounds fetches in flight per shard (32 when 0).
	FetchConcurrency int
	// Parse reads mmCIF into a reused structure (required for structure
	// formats; mmcif.ReadInto, see shardfn.Deps.Parse).
	Parse func(st *structure.Structure, data []byte) error
	// Formats is the run's format registry (the caller's composition:
	// registry.Builtin() when nil). Formats are resolved with inprocess.NewIn:
	// bio2token-v2 runs its encoder in this process, and an option naming
	// an input by URI, rotlib=gs://..., is read through Store.
	Formats *registry.Registry
	// NewFormat, when set, resolves formats instead of Formats (a test's
	// stand-in).
	NewFormat func(name string, opts map[string]string) (format.Format, error)
	// Store serves manifests and objects (localblob.Store when nil).
	Store blob.Store
	// OnPlan is called once the run is planned.
	OnPlan func(p *planner.Result)
	// OnRow is called for every row written (from several goroutines; it
	// must be safe for concurrent use).
	OnRow func(outcome string, docs int)
	// OnShard is called after each shard (from several goroutines).
	OnShard func(res shardfn.Result, err error)
	// Tracker, when set, records the reads and writes in flight and the
	// shards claimed, for a caller that reports what an interrupted run
	// waits for or exits at once (see Tracker); Run makes its own when nil.
	Tracker *Tracker
	// Retries is how many times a transiently failing shard is retried (2
	// when 0; negative for none).
	Retries int
	// RetryWait is the wait before the first retry, doubled before each
	// next one (1 s when 0).
	RetryWait time.Duration
	// OnRetry is called when an attempt of a shard failed transiently and
	// another follows after wait (attempt counts from 1 of attempts).
	OnRetry func(shard, attempt, attempts int, wait time.Duration, err error)
}

// Summary is the outcome of a run.
type Summary struct {
	Plan        *planner.Result
	Done        int // shards completed in this invocation
	AlreadyDone int // shards found done (skipped)
	Failed      []ShardError
	Wall        time.Duration
	// Docs counts the documents of the shards completed in this
	// invocation, as written to their output files (a failed or
	// interrupted shard writes none); DocsAlreadyDone those of the shards
	// found done, from the ledger.
	Docs, DocsAlreadyDone int64
}

// ShardError is a shard not done because of an error.
type ShardError struct {
	Shard int
	Err   error
	// Transient is set when the last attempt failed transiently (the
	// shard is released, pending: a rerun retries it; `status` calls it
	// missing); else the shard failed permanently (recorded as failed).
	Transient bool
	Attempts  int // attempts made in this invocation
}

// Word is the one word the run and `status` use for the shard's state:
// "missing" (transient: a rerun retries it) or "FAILED".
func (e ShardError) Word() string {
	if e.Transient {
		return "missing"
	}
	return "FAILED"
}

// ErrDifferentRun is wrapped by Run when the output folder holds another
// run (other inputs or options, after Normalize); the error says what
// differs.
var ErrDifferentRun = errors.New("output folder holds a different run")

// ErrIncomplete is wrapped by Run when some shards failed.
var ErrIncomplete = errors.New("run incomplete")

// Run plans the run (its spec normalized, see Normalize) and processes
// every shard not done. It holds the output folder's ledger lock for its
// duration (a second concurrent run on the same folder fails). A folder that already holds a different run is an
// error (use another --out). When ctx is cancelled it stops promptly and
// returns ctx's error; rerunning resumes. If any shard failed it returns an
// error wrapping ErrIncomplete after processing all the others.
func Run(ctx context.Context, cfg Config) (_ *Summary, err error) {
	defer derrors.Wrap(&err, "localrun.Run")
	start := time.Now()
	if cfg.Formats == nil {
		cfg.Formats = registry.Builtin()
	}
	if cfg.Spec, err = Normalize(cfg.Formats, cfg.Spec); err != nil {
		return nil, err
	}
	out, ledgerPath, local, err := outputPaths(cfg)
	if err != nil {
		return nil, err
	}
	tr := cfg.Tracker
	if tr == nil {
		tr = NewTracker()
	}
	var store blob.Store = localblob.Store{}
	if cfg.Store != nil {
		store = cfg.Store
	}
	store = trackedStore{store, tr}
	if cfg.NewFormat == nil {
		cfg.NewFormat = func(name string, opts map[string]string) (format.Format, error) {
			return inprocess.NewIn(ctx, cfg.Formats, format.Env{Store: store}, name, opts)
		}
	}
	// Everything that can refuse the run comes before anything is
	// written: planning is read-only, and the output folder and the ledger
	// are created only once the run can start.
	if local {
		if err := checkWritable(out); err != nil {
			return nil, err
		}
	}
	if err := checkWritable(filepath.Dir(ledgerPath)); err != nil {
		return nil, err
	}
	q := localqueue.New()
	p, err := planner.Prepare(ctx, planner.Deps{Store: store, Publisher: q, NewFormat: cfg.NewFormat}, cfg.Spec)
	if err != nil {
		return nil, err
	}
	if local {
		if err := checkNotManifestFolder(out, p); err != nil {
			return nil, err
		}
	}
	led, err := localledger.Open(ledgerPath)
	if err != nil {
		return nil, err
	}
	defer led.Close()
	tled := trackedLedger{led, tr}
	tr.mu.Lock()
	tr.led = tled
	tr.mu.Unlock()
	if local {
		if _, err := localblob.RemoveTemps(out); err != nil {
			return nil, err
		}
	}
	pdeps := planner.Deps{Store: store, Ledger: led, Publisher: q, NewFormat: cfg.NewFormat}
	for _, r := range led.Runs() {
		if r.ID != p.Run.ID {
			return nil, derrors.Permanent(fmt.Errorf("%w: %s already holds run %s, and this command is run %s; they differ in\n  %s\nUse another --out, or rerun with the recorded inputs and options",
				ErrDifferentRun, out, r.ID, p.Run.ID, strings.Join(runDiff(r, p.Run), "\n  ")))
		}
	}
	if err := planner.Publish(ctx, pdeps, p); err != nil {
		return nil, err
	}
	q.Close()
	sum := &Summary{Plan: p}
	if shards, err := led.Shards(ctx, p.Run.ID); err == nil {
		for _, s := range shards {
			if s.Status == ledger.Done {
				sum.AlreadyDone++
				sum.DocsAlreadyDone += s.Counts.DocsOut
			}
		}
	}
	if cfg.OnPlan != nil {
		cfg.OnPlan(p)
	}
	deps := shardfn.Deps{Store: store, Ledger: tled, Parse: cfg.Parse, NewFormat: cfg.NewFormat,
		FetchConcurrency: cfg.FetchConcurrency, OnRow: cfg.OnRow}
	processAll(ctx, cfg, q, deps, sum)
	sum.Wall = time.Since(start)
	if err := ctx.Err(); err != nil {
		// An interrupted shard left alone stays running until its lease
		// ends; released, a rerun resumes it at once.
		if _, rerr := tr.ReleaseClaims(context.WithoutCancel(ctx)); rerr != nil {
			return sum, errors.Join(err, rerr)
		}
		return sum, err
	}
	if len(sum.Failed) > 0 {
		f := sum.Failed[0]
		return sum, fmt.Errorf("%w: %s (first: shard %d %s: %s)", ErrIncomplete,
			sum.notDone(p.Run.Shards), f.Shard, f.Word(), derrors.Describe(f.Err))
	}
	return sum, nil
}

// outputPaths resolves the output folder (a local path when local) and the
// ledger file: OUT/ledger file for a local folder unless cfg.LedgerPath
// says otherwise; a remote output needs cfg.LedgerPath.
func outputPaths(cfg Config) (out, ledgerPath string, local bool, err error) {
	out, ledgerPath, local = cfg.Spec.Output, cfg.LedgerPath, blob.IsLocal(cfg.Spec.Output)
	if local {
		if out, err = localblob.Path(out); err != nil {
			return "", "", false, err
		}
		if ledgerPath == "" {
			ledgerPath = filepath.Join(out, localledger.FileName)
		}
	} else if ledgerPath == "" {
		return "", "", false, derrors.Permanent(fmt.Errorf("output %s is not a local folder: a local ledger file is needed (LedgerPath)", out))
	}
	return out, ledgerPath, local, nil
}

// processAll runs every queued shard on cfg.Workers workers (GOMAXPROCS
// when 0), adding each outcome to sum, until the queue is drained or ctx
// ends.
func processAll(ctx context.Context, cfg Config, q *localqueue.Queue, deps shardfn.Deps, sum *Summary) {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				msg, ok := q.Receive(ctx)
				if !ok {
					return
				}
				res, attempts, err := processShard(ctx, cfg, deps, msg)
				if cfg.OnShard != nil {
					cfg.OnShard(res, err)
				}
				mu.Lock()
				switch {
				case err == nil && res.AlreadyDone:
				case err == nil:
					sum.Done++
					sum.Docs += res.Accounting.DocsOut
				case ctx.Err() != nil: // interrupted: not done, not failed
				default:
					sum.Failed = append(sum.Failed, ShardError{Shard: msg.Shard, Err: err, Attempts: attempts,
						Transient: errors.Is(err, derrors.ErrTransient)})
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// processShard runs one shard, retrying a transient failure cfg.Retries
// times (2 when 0; none when negative), waiting cfg.RetryWait (1 s when
// 0), doubling, between attempts.
func processShard(ctx context.Context, cfg Config, deps shardfn.Deps, msg queue.ShardMessage) (res shardfn.Result, attempts int, err error) {
	retries := cfg.Retries
	if retries == 0 {
		retries = 2
	}
	retryWait := cfg.RetryWait
	if retryWait <= 0 {
		retryWait = time.Second
	}
	for wait := retryWait; ; wait *= 2 {
		res, err = shardfn.Process(withShard(ctx, msg.Shard), deps, msg)
		attempts++
		if err == nil || !errors.Is(err, derrors.ErrTransient) || attempts > max(retries, 0) || ctx.Err() != nil {
			return res, attempts, err
		}
		if cfg.OnRetry != nil {
			cfg.OnRetry(msg.Shard, attempts, max(retries, 0)+1, wait, err)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
}

// notDone says how many of total shards failed and are missing.
func (s *Summary) notDone(total int) string {
	failed, missing := s.FailedMissing()
	var parts []string
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d shards failed", failed, total))
	}
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d shards missing after transient errors (a rerun retries them)", missing, total))
	}
	return strings.Join(parts, ", ")
}

// FailedMissing counts the shards of s.Failed that failed permanently and
// those stopped on a transient error (missing: a rerun retries them).
func (s *Summary) FailedMissing() (failed, missing int) {
	for _, f := range s.Failed {
		if f.Transient {
			missing++
		} else {
			failed++
		}
	}
	return failed, missing
}
