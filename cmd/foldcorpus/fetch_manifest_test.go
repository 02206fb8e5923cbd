package main

import (
	"bytes"
	"context"
	"fmt"
	iofs "io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// hubWithStructures serves files AFDB-shaped manifests of synthetic
// structures whose gcs_uri points at the structures written under dir, with
// the same text inline in cif_content.
func hubWithStructures(t *testing.T, dir string, files, rows int, opts hubtest.Options) (*hubtest.Server, []hubtest.File) {
	t.Helper()
	cifDir := filepath.Join(dir, "cif")
	if err := os.MkdirAll(cifDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var hub []hubtest.File
	for f := 0; f < files; f++ {
		for i := f * rows; i < (f+1)*rows; i++ {
			p := synth.Make(synth.SampleSeed, i, 40, 260)
			if err := os.WriteFile(filepath.Join(cifDir, p.EntryID+".cif"), p.CIF, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		data, err := hubtest.AFDBFile(hubtest.ManifestOptions{First: f * rows, Rows: rows, RowGroup: 8, Structures: true,
			URI: func(id string) string { return "file://" + filepath.Join(cifDir, id+".cif") }})
		if err != nil {
			t.Fatal(err)
		}
		hub = append(hub, hubtest.File{Path: fmt.Sprintf("data/train-%05d-of-%05d.parquet", f, files), Data: data})
	}
	opts.Repo, opts.Files = "timodonnell/afdb-e2e", hub
	srv := hubtest.New(opts)
	t.Cleanup(srv.Close)
	return srv, hub
}

// docsByEntry reads every document of the corpus files matching glob.
// referenceDocs builds the corpus of the Hub's full files (documents from
// their cif_content) under dir and returns its documents by entry: what a
// fetched, projected manifest must give.
func referenceDocs(t *testing.T, dir string, hub []hubtest.File) map[string]string {
	t.Helper()
	ctx := context.Background()
	full := filepath.Join(dir, "full")
	for _, f := range hub {
		if err := (localblob.Store{}).Create(ctx, filepath.Join(full, f.Path), f.Data); err != nil {
			t.Fatal(err)
		}
	}
	ref := filepath.Join(dir, "ref")
	if err := runRun(ctx, []string{"--manifest", filepath.Join(full, "data", "*.parquet"), "--cif-text-column", "cif_content", "--out", ref, "--workers", "1"}); err != nil {
		t.Fatal(err)
	}
	return docsByEntry(t, filepath.Join(ref, "*.parquet"))
}

func docsByEntry(t *testing.T, glob string) map[string]string {
	t.Helper()
	parts, _ := filepath.Glob(glob)
	docs := map[string]string{}
	for _, p := range parts {
		err := corpus.Read(context.Background(), localblob.Store{}, p, []string{"entry_id", "document"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				docs[v[0].(string)] = v[1].(string)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

// TestFetchManifestSelectRun goes from the (fake) Hub to a corpus with the
// commands a user runs: fetch-manifest (HF_ENDPOINT, HF_TOKEN), then select
// on its output, then run on the selection. Every document equals the one
// built from the full source files' inline cif_content.
func TestFetchManifestSelectRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv, hub := hubWithStructures(t, dir, 3, 24, hubtest.Options{Token: "hf_secret", PageSize: 2})
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "hf_secret")

	fetched := filepath.Join(dir, "fetched")
	if err := runFetchManifest(ctx, []string{"hf://datasets/timodonnell/afdb-e2e", "--out", fetched, "--concurrency", "2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(fetched, hf.LockName)); err != nil {
		t.Fatal(err)
	}
	sel := filepath.Join(dir, "sel")
	if err := runSelect(ctx, []string{"--input", filepath.Join(fetched, "data", "*.parquet"), "--out", sel, "--num-rounds", "2", "--shard-size", "16"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "corpus")
	if err := runRun(ctx, []string{"--manifest", filepath.Join(sel, "train", "shard_*.parquet"), "--out", out, "--workers", "1"}); err != nil {
		t.Fatal(err)
	}
	got := docsByEntry(t, filepath.Join(out, "*.parquet"))

	// The reference: the full source files, documents from cif_content.
	want := referenceDocs(t, dir, hub)
	if len(got) < 20 || len(want) != 72 {
		t.Fatalf("%d documents from the fetched+selected manifest, %d from the full files; want at least 20 and 72", len(got), len(want))
	}
	for id, doc := range got {
		if want[id] != doc {
			t.Errorf("%s: the document from the fetched manifest differs from the one from cif_content", id)
		}
	}
	if c := srv.Counts(); c.Resolves != 3 {
		t.Errorf("%d resolves, want 3", c.Resolves)
	}
}

// TestFetchManifestKilled kills the fetch-manifest process (SIGKILL) after a
// few files, runs the same command again, and compares the output folder,
// lock included, byte for byte with an uninterrupted fetch; the second run
// resolves only the files the first did not finish.
func TestFetchManifestKilled(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	srv, _ := hubWithStructures(t, dir, 12, 4, hubtest.Options{Latency: 40 * time.Millisecond})
	uri := "hf://datasets/timodonnell/afdb-e2e"

	whole := filepath.Join(dir, "whole")
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "")
	if err := runFetchManifest(context.Background(), []string{uri, "--out", whole}); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(dir, "killed")
	cmd := exec.Command(bin, "fetch-manifest", uri, "--out", out, "--concurrency", "1")
	cmd.Env = append(os.Environ(), "HF_ENDPOINT="+srv.URL())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		done, _ := filepath.Glob(filepath.Join(out, "data", "train-*.parquet"))
		if len(done) >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	done, _ := filepath.Glob(filepath.Join(out, "data", "train-*.parquet"))
	if len(done) < 3 || len(done) == 12 {
		t.Fatalf("%d files when killed, want 3 to 11", len(done))
	}
	// Requests the killed process had sent are still counted by the server
	// after its injected latency: let them land.
	time.Sleep(200 * time.Millisecond)
	before := srv.Counts().Resolves
	c := exec.Command(bin, "fetch-manifest", uri, "--out", out)
	c.Env = cmd.Env
	if msg, err := c.CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, msg)
	}
	done2, _ := filepath.Glob(filepath.Join(out, "data", "train-*.parquet"))
	if got := srv.Counts().Resolves - before; got > int64(12-len(done)) || len(done2) != 12 {
		t.Errorf("rerun resolved %d files for the %d missing; %d files now", got, 12-len(done), len(done2))
	}
	got, want := treeBytes(t, out), treeBytes(t, whole)
	if len(got) != len(want) || len(want) != 13 {
		t.Fatalf("killed+rerun folder has %d files, the uninterrupted one %d (want 13): %v", len(got), len(want), keys(got))
	}
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s differs from the uninterrupted fetch's", name)
		}
	}
}

func treeBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRunHFManifest: `run --manifest 'hf://datasets/.../data/*.parquet'`
// reads a small manifest straight from the (fake) Hub, pinned to the
// branch's commit at planning, and builds the same documents as the full
// files' inline cif_content; one resolve per file (kept from planning to the shard).
func TestRunHFManifest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	srv, hub := hubWithStructures(t, dir, 2, 8, hubtest.Options{})
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "")
	out := filepath.Join(dir, "corpus")
	if err := runRun(ctx, []string{"--manifest", "hf://datasets/timodonnell/afdb-e2e/data/*.parquet", "--out", out, "--workers", "1"}); err != nil {
		t.Fatal(err)
	}
	got := docsByEntry(t, filepath.Join(out, "*.parquet"))
	want := referenceDocs(t, dir, hub)
	if len(got) != 16 || len(want) != 16 {
		t.Fatalf("%d documents from hf://, %d from the full files; want 16", len(got), len(want))
	}
	for id, doc := range got {
		if want[id] != doc {
			t.Errorf("%s: the document from the hf:// manifest differs", id)
		}
	}
	if c := srv.Counts(); c.Resolves != int64(len(hub)) {
		t.Errorf("%d resolves for %d files, want one per file", c.Resolves, len(hub))
	}
}
