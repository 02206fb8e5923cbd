package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/bio2token/b2tgolden"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// TestCLIRunBio2TokenGolden: `foldcorpus run --format bio2token-v2 --opt
// weights=CKPT` on a manifest of golden files (two shards), with the
// PyTorch-written golden checkpoint: every output document equals the
// reference generator's (byte for byte, or differing only in near-tie code
// tokens).
func TestCLIRunBio2TokenGolden(t *testing.T) {
	files := b2tgolden.Smallest(b2tgolden.Load(t), 3)
	tmp := t.TempDir()
	var rows [][]any
	for _, g := range files {
		rows = append(rows, []any{g.EntryID, g.Path})
	}
	data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(tmp, "golden.parquet")
	if err := os.WriteFile(m, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	stdout, stderr, code := runCLI(t, "run", "--format", "bio2token-v2", "--opt", "weights="+b2tgolden.Checkpoint(t),
		"--manifest", m, "--out", out, "--row-groups-per-shard", "1", "--workers", "1")
	if code != 0 {
		t.Fatalf("foldcorpus run exited %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	shards, _ := filepath.Glob(filepath.Join(out, "*.parquet"))
	if len(shards) != 2 {
		t.Fatalf("%d shard files, want 2: %v", len(shards), shards)
	}
	check := b2tgolden.NewOutputs(t, "foldcorpus run", files)
	for _, sh := range shards {
		if err := corpus.Read(context.Background(), localblob.Store{}, sh, b2tgolden.OutputColumns, func(r *manifest.Rows) error {
			return check.Rows(t, r)
		}); err != nil {
			t.Fatal(err)
		}
	}
	check.Done(t)
}
