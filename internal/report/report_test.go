package report

import (
	"context"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// allPlots are the plots of a contacts-and-distances-v2 run with a ledger.
var allPlots = []string{"documents_per_shard.png", "shard_wall_clock.png", "seq_len.png", "num_tokens.png",
	"context_fill.png", "statements.png", "token_composition.png", "think_tokens.png", "global_plddt.png", "accounting.png", "throughput.png"}

// TestSyntheticReport checks a report of a run with failed and missing
// shards, interrupted halfway and resumed an hour later, against DuckDB.
func TestSyntheticReport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := localblob.Store{}
	shards, err := WriteSynthetic(ctx, store, dir, SynthConfig{Shards: 24, RowsPerShard: 7, FailEvery: 10, Missing: true, Seed: 3, Resume: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(ctx, store, dir, Options{Shards: shards})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rep.WriteDir(ctx, dir); err != nil {
		t.Fatal(err)
	}
	s := checkSummary(t, dir, shards, 8192, true) // synthetic files carry no token mix
	checkPNGs(t, dir, s, allPlots)
	if s.Accounting.ShardsFailed != 2 || s.Accounting.ShardsMissing != 1 {
		t.Errorf("failed/missing = %d/%d, want 2/1", s.Accounting.ShardsFailed, s.Accounting.ShardsMissing)
	}
}
