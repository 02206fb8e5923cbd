package report

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// TestManyShards is the CI-sized version of `foldcorpus bench report` (2,000
// shards): it reports a 200-shard synthetic run and prints the time and the
// bytes read, and checks that only the report's columns were read.
func TestManyShards(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := localblob.Store{}
	shards, err := WriteSynthetic(ctx, store, dir, SynthConfig{Shards: 200, RowsPerShard: 2, FailEvery: 50, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	for _, skip := range []bool{false, true} {
		start := time.Now()
		rep, err := Build(ctx, store, dir, Options{Shards: shards, SkipDocuments: skip})
		if err != nil {
			t.Fatal(err)
		}
		s := rep.Summary
		t.Logf("SkipDocuments=%v: %d files reported in %v: read %d of %d bytes, columns %v, %d plots",
			skip, s.Files, time.Since(start).Round(time.Millisecond), s.IO.BytesRead, s.IO.BytesTotal, s.IO.ColumnsRead, len(s.Plots))
		want := []string{"document", "global_plddt", "num_tokens", "seq_len"}
		if skip {
			want = want[1:]
		}
		if !slices.Equal(s.IO.ColumnsRead, want) || s.Files != 196 || s.Accounting.ShardsFailed != 4 {
			t.Errorf("columns %v, %d files, %d failed; want %v, 196, 4", s.IO.ColumnsRead, s.Files, s.Accounting.ShardsFailed, want)
		}
		if skip && s.IO.BytesRead*2 > s.IO.BytesTotal {
			t.Errorf("without documents the report read %d of %d bytes: more than half", s.IO.BytesRead, s.IO.BytesTotal)
		}
	}
}

// BenchmarkBuild reports a 200-shard synthetic run per iteration.
func BenchmarkBuild(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	store := localblob.Store{}
	shards, err := WriteSynthetic(ctx, store, dir, SynthConfig{Shards: 200, RowsPerShard: 4, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Build(ctx, store, dir, Options{Shards: shards})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(rep.Summary.IO.BytesRead), "bytes-read/op")
	}
}
