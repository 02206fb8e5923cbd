package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/dedup"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/verify"
	"github.com/foldcorpus/foldcorpus/planner"
)

// publishCut is what publish takes of a dedup cut beside its shards.
type publishCut struct {
	pattern string // the shards' names (the report reads them, not dedup_rows.parquet)
	stats   []byte // dedup_stats.json, published as report/dedup_stats.json
}

// readPublishCut returns the cut in out, or nil when out is not one (or
// has a run's record).
func readPublishCut(ctx context.Context, store blob.Store, out string, run *ledger.Run) (*publishCut, error) {
	if run != nil {
		return nil, nil
	}
	if ok, err := verify.IsCut(ctx, store, out); !ok || err != nil {
		return nil, err
	}
	b, err := store.ReadAll(ctx, planner.JoinURI(out, dedup.StatsFile))
	if err != nil {
		return nil, err
	}
	pc := &publishCut{pattern: "*-*-of-*.parquet", stats: b}
	var st dedup.Stats
	if json.Unmarshal(b, &st) == nil && len(st.Shards) > 0 {
		if m := shardName.FindStringIndex(st.Shards[0]); m != nil && m[0] > 0 {
			pc.pattern = st.Shards[0][:m[0]] + "-*-of-*.parquet"
		}
	}
	return pc, nil
}

// verifyCutBeforePublish verifies the cut in out before publish uploads it
// and refuses, with the report on w, a cut that is not whole; with partial,
// missing shards are allowed, nothing else.
func verifyCutBeforePublish(ctx context.Context, w io.Writer, store blob.Store, out string, partial bool) error {
	rep, err := verify.VerifyCut(ctx, store, verify.CutOptions{Out: out})
	if err != nil {
		return fmt.Errorf("verifying %s before publishing: %w", out, err)
	}
	if rep.OK() || partial && rep.OnlyMissing() {
		return nil
	}
	_ = verify.WriteCutText(w, rep)
	return &exitError{1, fmt.Errorf("%s fails verify (%d shards missing, %d extra objects, %d disagreements; see `foldcorpus verify %s`): not publishing it",
		out, len(rep.Missing), len(rep.Extra), len(rep.Disagrees), out)}
}
