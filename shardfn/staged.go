package shardfn

import (
	"context"
	"errors"
	"fmt"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
	"github.com/foldcorpus/foldcorpus/internal/version"
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

// adaptShard reads the shard's manifest rows, fetches (bounded pool, input
// order), parses and adapts every row, and returns the staged shard: its
// accounting so far (every row in rows_in; filtered and skipped rows
// counted) and one adapted row per remaining row, with its passthrough
// values. Bad rows fail the shard, every one recorded, as in run.
func adaptShard(ctx context.Context, deps Deps, msg queue.ShardMessage, f format.Neural, tm *Timing) (*tokenize.Staged, error) {
	st := &tokenize.Staged{Accounting: corpus.Accounting{
		RunID: msg.RunID, Shard: msg.Shard, Total: msg.Total, Manifest: msg.Manifest,
		RowGroups: msg.RowGroups, Format: f.Name(), Options: msg.Options,
		Lenient: msg.LenientMissing, Filtered: map[string]int64{},
		Version: version.String(),
	}}
	acc := &st.Accounting
	mstore := blob.Pin(deps.Store, msg.Manifest, msg.ManifestGeneration)
	schema, err := manifest.ReadSchema(ctx, mstore, msg.Manifest)
	if err != nil {
		return st, err
	}
	acc.DroppedColumns = manifest.Dropped(schema, msg.Columns)
	inputs := map[string]bool{manifest.EntryIDColumn: true, msg.URIColumn: true, msg.TextColumn: true}
	var passIdx []int
	for i, name := range msg.Columns {
		if inputs[name] {
			continue
		}
		c, ok := schema.Column(name)
		if !ok {
			return st, derrors.Permanent(fmt.Errorf("manifest %s: %w %q", msg.Manifest, manifest.ErrMissingColumn, name))
		}
		st.Passthrough = append(st.Passthrough, c)
		passIdx = append(passIdx, i)
	}
	mstart := time.Now()
	var rows []*manifest.Rows
	err = manifest.ReadShard(ctx, mstore, msg.Manifest, msg.RowGroups, msg.Columns, func(r *manifest.Rows) error {
		rows = append(rows, r)
		return nil
	})
	tm.Manifest = time.Since(mstart)
	if err != nil {
		return st, err
	}
	var bad badRows
	err = fetchPool(ctx, deps, msg, adaptOnly{f}, rows, passIdx, &bad, func(r rowOut) error {
		tm.Fetch += r.fetch
		tm.Parse += r.parse
		tm.Generate += r.generate
		tm.Rows++
		acc.RowsIn++
		switch {
		case r.skipped:
			acc.Skipped++
			acc.SkippedIDs = append(acc.SkippedIDs, r.entryID)
		case r.result.Filtered != "":
			acc.Filtered[r.result.Filtered]++
		case bad.failed():
			// the shard has failed and stages nothing
		default:
			in, ok := r.result.Values[0].(*b2t.Input)
			if !ok || in == nil {
				return &RowError{EntryID: r.entryID, Stage: "adapt", Err: derrors.Permanent(fmt.Errorf("format %s adapted to %T, want *bio2token.Input", f.Name(), r.result.Values[0]))}
			}
			st.Rows = append(st.Rows, tokenize.StagedRow{EntryID: r.entryID, Structure: r.structure, Passthrough: r.pass, Input: in})
		}
		return nil
	})
	if err == nil {
		err = bad.err()
	}
	return st, err
}
