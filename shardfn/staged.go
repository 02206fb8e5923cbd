package shardfn

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
)

// Handoff sends the shards of a neural format (format.Neural) to the
// accelerator job (package tpujob) instead of generating them inline. The
// cloud shard function sets it; the local runner leaves Deps.Handoff nil
// and runs every format inline.
type Handoff struct {
	// StagedURI names the staged object of a shard. It must be the same for
	// every delivery of the shard (a retry verifies its own object).
	StagedURI func(msg queue.ShardMessage) (string, error)
	// Publish sends a tokenize request to the job's topic and returns once
	// the queue accepted it. Publishing twice is safe: the job claims the
	// shard in the ledger, so a second request for a done shard is a no-op.
	Publish func(ctx context.Context, req tokenize.Request) error
}

// LastErrorStaged starts the ledger's LastError of a shard handed to the
// accelerator job (the shard is pending until the job claims it).
const LastErrorStaged = "staged for the tokenize job: "

// handOff does the CPU part of a neural format's shard under the caller's
// claim: fetch, parse and adapt every row (Neural.Adapt; filtered and
// skipped rows are settled here and counted), stage the adapted inputs
// with tokenize.Stage (create-only; a retry verifies), release the claim
// (the shard goes back to pending with LastErrorStaged+URI as its last
// error, so that the job can claim it at once), then publish the tokenize
// request. Errors are handled as Process handles run's: transient ones
// release the shard, permanent ones fail it.
func handOff(ctx context.Context, deps Deps, msg queue.ShardMessage, f format.Neural, shard ledger.Shard, res Result) (Result, error) {
	uri, err := deps.Handoff.StagedURI(msg)
	if err != nil {
		err = derrors.Permanent(err)
	}
	var acc corpus.Accounting
	if err == nil {
		var st *tokenize.Staged
		st, err = adaptShard(ctx, deps, msg, f, &res.Timing)
		if st != nil {
			acc = st.Accounting
		}
		if err == nil {
			wstart := time.Now()
			err = tokenize.Stage(ctx, deps.Store, uri, st)
			res.Timing.Write += time.Since(wstart)
		}
	}
	res.Accounting = acc
	if err != nil {
		return res, settle(ctx, deps, shard, acc, err)
	}
	shard.Error = LastErrorStaged + uri
	if err := deps.Ledger.Release(ctx, shard); err != nil {
		return res, err
	}
	req := tokenize.Request{RunID: msg.RunID, Shard: msg.Shard, Total: msg.Total, Format: f.Name(), Staged: uri, Output: msg.Output}
	if err := deps.Handoff.Publish(ctx, req); err != nil {
		// The shard is pending and staged: a redelivery verifies the staged
		// object and publishes again.
		if !errors.Is(err, derrors.ErrPermanent) {
			err = derrors.Transient(err)
		}
		return res, fmt.Errorf("publishing the tokenize request: %w", err)
	}
	res.Staged = uri
	return res, nil
}

// adaptOnly makes a Neural format's Generate run only Adapt: the adapted
// input travels in Values[0].
type adaptOnly struct{ format.Neural }

func (a adaptOnly) Generate(in format.Input) (format.Result, error) {
	adapted, filtered, err := a.Adapt(in)
	if err != nil {
		return format.Result{}, err
	}
	return format.Result{Filtered: filtered, Values: []any{adapted}}, nil
}

// stagedSink stages the adapted rows of a neural format's shard (a
// rowSink): tokenize.Staged.Add takes each one, encoded by its format.
type stagedSink struct {
	st     *tokenize.Staged
	format format.Neural
}

func (s stagedSink) expectRows(int64) {}

func (s stagedSink) add(r rowOut, failed bool) error {
	if failed {
		return nil // the shard has failed and stages nothing
	}
	if err := s.st.Add(s.format, r.entryID, r.structure, r.pass, r.result.Values[0]); err != nil {
		return &RowError{EntryID: r.entryID, Stage: "adapt", Err: derrors.Permanent(err)}
	}
	return nil
}

// adaptShard reads the shard's manifest rows, fetches (bounded pool, input
// order), parses and adapts every row, and returns the staged shard: its
// accounting so far (every row in rows_in; filtered and skipped rows
// counted) and one adapted row per remaining row, with its passthrough
// values. Bad rows fail the shard, every one recorded, as in run: the same
// one pass (shardRun's open and rowLoop), with the staged sink.
func adaptShard(ctx context.Context, deps Deps, msg queue.ShardMessage, f format.Neural, tm *Timing) (*tokenize.Staged, error) {
	st := &tokenize.Staged{Accounting: newAccounting(msg, f)}
	sr := &shardRun{deps: deps, msg: msg, f: adaptOnly{f}, acc: &st.Accounting, tm: tm}
	if err := sr.open(ctx); err != nil {
		return st, err
	}
	defer sr.in.file.Close()
	st.Passthrough = sr.in.pass
	return st, sr.rowLoop(ctx, stagedSink{st: st, format: f}, deps.OnRow)
}
