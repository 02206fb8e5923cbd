package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synthmanifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestSelectFeedsRun selects from a manifest of real AFDB files and builds a
// corpus from the selection with `foldcorpus run`: the selection's shards
// are a generation manifest as they are, and round travels to the output.
func TestSelectFeedsRun(t *testing.T) {
	var files []string
	for _, f := range testcorpus.Files(t, "afdb") {
		if m, _ := filepath.Match("AF-*-F1-model_v4.cif", filepath.Base(f)); m {
			files = append(files, f)
		}
	}
	if len(files) < 9 {
		t.Fatalf("only %d AFDB v4 files", len(files))
	}
	files = files[:9]
	n := len(files)
	entry, split, cl := make([]string, n), make([]string, n), make([]string, n)
	plddt, seqLen := make([]float64, n), make([]int64, n)
	for i, f := range files {
		entry[i], split[i], cl[i] = filepath.Base(f), "train", fmt.Sprintf("C%d", i%3)
		plddt[i], seqLen[i] = float64(90-i), 100
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "manifest.parquet")
	if err := synthmanifest.WriteTable(in, []synthmanifest.Column{
		{Name: "entry_id", Values: entry}, {Name: "gcs_uri", Values: files}, {Name: "split", Values: split},
		{Name: "struct_cluster_id", Values: cl}, {Name: "global_plddt", Values: plddt}, {Name: "seq_len", Values: seqLen},
	}, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sel := filepath.Join(dir, "sel")
	if err := runSelect(ctx, []string{"--input", in, "--out", sel, "--num-rounds", "2", "--shard-size", "2"}); err != nil {
		t.Fatal(err)
	}
	// 3 clusters of 3, 2 rounds: rounds 1 then 0, 3 rows each, shards of 2.
	shards, _ := filepath.Glob(filepath.Join(sel, "train", "shard_*.parquet"))
	if len(shards) != 4 {
		t.Fatalf("%d selection shards, want 4", len(shards))
	}
	out := filepath.Join(dir, "corpus")
	if err := runRun(ctx, []string{"--manifest", filepath.Join(sel, "train", "shard_*.parquet"), "--out", out, "--workers", "1"}); err != nil {
		t.Fatal(err)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	if len(parts) != len(shards) {
		t.Fatalf("run wrote %d output shards for %d selection shards", len(parts), len(shards))
	}
	var rounds []int64
	for _, p := range parts {
		err := manifest.ReadFile(ctx, localblob.Store{}, p, nil, []string{"round"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				rounds = append(rounds, v[0].(int64))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(rounds)
	if len(rounds) == 0 || rounds[0] != 0 || rounds[len(rounds)-1] != 1 {
		t.Errorf("output rounds %v, want documents of rounds 0 and 1", rounds)
	}
}
