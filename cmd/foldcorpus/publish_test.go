package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/foldcorpus/foldcorpus/internal/datacard"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/report"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

const pubRepo = "marinfold/published"

var pubRun struct {
	once sync.Once
	out  string
	err  error
}

// publishableRun runs (once per test process) a local run of 48 synthetic
// structures in 24 shards, with a fetch-manifest lock file beside its
// manifest, and returns its output folder.
func publishableRun(t *testing.T) string {
	t.Helper()
	pubRun.once.Do(func() {
		ctx := context.Background()
		dir, err := os.MkdirTemp("", "foldcorpus-publish-")
		if err != nil {
			pubRun.err = err
			return
		}
		glob, err := synth.WriteSample(ctx, localblob.Store{}, filepath.Join(dir, "sample"), 48, 24, false)
		if err != nil {
			pubRun.err = err
			return
		}
		lock := &hf.Lock{Repo: "timodonnell/afdb-manifest", RequestedRevision: "main", Revision: "5e1f00c0ffee5e1f00c0ffee5e1f00c0ffee5e1f",
			Files: []hf.LockedFile{{Path: "data/train-00000-of-00001.parquet", Size: 1, OID: "x"}}}
		b, _ := lock.Encode()
		if pubRun.err = os.WriteFile(filepath.Join(dir, "sample", hf.LockName), b, 0o644); pubRun.err != nil {
			return
		}
		pubRun.out = filepath.Join(dir, "out")
		pubRun.err = runRun(ctx, []string{"--manifest", glob, "--out", pubRun.out, "--workers", "2"})
	})
	if pubRun.err != nil {
		t.Fatal(pubRun.err)
	}
	return pubRun.out
}

func shardFiles(t *testing.T, out string) map[string][]byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	m := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m["data/"+filepath.Base(p)] = b
	}
	return m
}

// checkPublished reads the repository back: every shard byte for byte
// (sha256), the card's YAML header parsed with yaml.v3 and its data_files
// glob matching exactly the shard files, its plots and report present.
func checkPublished(t *testing.T, srv *hubtest.Server, out string) {
	t.Helper()
	want := shardFiles(t, out)
	if len(want) != 24 {
		t.Fatalf("%d shard files in the run, want 24", len(want))
	}
	repo := map[string][]byte{}
	for _, f := range srv.Files("") {
		repo[f.Path] = f.Data
	}
	for p, b := range want {
		if hubtest.SHA256(repo[p]) != hubtest.SHA256(b) {
			t.Errorf("%s: sha256 %s in the repository, %s in the run", p, hubtest.SHA256(repo[p]), hubtest.SHA256(b))
		}
	}
	card, ok := repo["README.md"]
	if !ok {
		t.Fatal("no README.md in the repository")
	}
	rest, _ := bytes.CutPrefix(card, []byte("---\n"))
	head, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		t.Fatalf("the card has no YAML header:\n%s", card)
	}
	var h datacard.Header
	if err := yaml.Unmarshal(head, &h); err != nil {
		t.Fatalf("the card's YAML header: %v\n%s", err, head)
	}
	if len(h.Configs) != 1 || len(h.Configs[0].DataFiles) != 1 || h.License != "cc-by-4.0" || h.PrettyName == "" {
		t.Fatalf("header %+v", h)
	}
	glob := h.Configs[0].DataFiles[0].Path
	for p := range repo {
		matched, err := path.Match(glob, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, shard := want[p]; matched != shard {
			t.Errorf("data_files %q matches %s: %v; it is a shard of the run: %v", glob, p, matched, shard)
		}
	}
	for _, s := range []string{"5e1f00c0ffee5e1f00c0ffee5e1f00c0ffee5e1f", hf.LockName, "| rows in | 48 |", "contacts-and-distances-v2", "report/summary.json"} {
		if !bytes.Contains(body, []byte(s)) {
			t.Errorf("the card's body lacks %q", s)
		}
	}
	plots := 0
	for _, line := range strings.Split(string(body), "\n") {
		if img, ok := strings.CutPrefix(line, "!["); ok {
			_, file, _ := strings.Cut(img, "](")
			file = strings.TrimSuffix(file, ")")
			if _, ok := repo[file]; !ok {
				t.Errorf("the card shows %s, not in the repository", file)
			}
			plots++
		}
	}
	if _, ok := repo["report/summary.json"]; !ok || plots == 0 {
		t.Errorf("report/summary.json in the repository: %v; %d plots on the card", ok, plots)
	}
}

// TestPublish publishes a complete run of 24 shards, reads it back, and
// publishes again: the rerun uploads and commits nothing.
func TestPublish(t *testing.T) {
	out := publishableRun(t)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{Absent: true}})
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "hf_write")
	if err := runPublish(context.Background(), []string{out, "hf://datasets/" + pubRepo, "--create", "--max-commit-files", "10"}); err != nil {
		t.Fatal(err)
	}
	checkPublished(t, srv, out)
	wc := srv.WriteCounts()
	if !wc.Created || !wc.Private {
		t.Errorf("created %v private %v, want a private repository created", wc.Created, wc.Private)
	}
	for i, s := range wc.CommitSizes {
		if s > 10 {
			t.Errorf("commit %d has %d files, the bound is 10", i, s)
		}
	}
	before := wc
	if err := runPublish(context.Background(), []string{out, "hf://datasets/" + pubRepo}); err != nil {
		t.Fatal(err)
	}
	if after := srv.WriteCounts(); after.Commits != before.Commits || len(after.ObjectUploads) != len(before.ObjectUploads) || after.BytesUploaded != before.BytesUploaded {
		t.Errorf("the rerun committed %d and uploaded %d bytes, want nothing", after.Commits-before.Commits, after.BytesUploaded-before.BytesUploaded)
	}
}

// TestPublishVerifyFails: a repository that, read back, differs from the
// run (the server corrupts a shard) makes publish fail, without the card.
func TestPublishVerifyFails(t *testing.T) {
	out := publishableRun(t)
	var srv *hubtest.Server
	srv = hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{OnCommit: func(commit string, n int) {
		srv.Tamper(commit, "data/part-00003-of-00024.parquet", []byte("corrupt"))
	}}})
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "hf_write")
	err := runPublish(context.Background(), []string{out, "hf://datasets/" + pubRepo})
	if !errors.Is(err, hf.ErrDifferent) || !strings.Contains(err.Error(), "part-00003-of-00024.parquet") {
		t.Fatalf("err = %v, want hf.ErrDifferent naming part-00003-of-00024.parquet", err)
	}
	for _, f := range srv.Files("") {
		if f.Path == "README.md" {
			t.Error("the card was committed")
		}
	}
}

// TestPublishIncomplete refuses a run with a failed shard, naming it and
// its entry; with --partial it publishes the done shard and the card says
// which one is not there.
func TestPublishIncomplete(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	glob, err := synth.WriteSample(ctx, localblob.Store{}, filepath.Join(dir, "sample"), 8, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	cifs, _ := filepath.Glob(filepath.Join(dir, "sample", "cif", "*.cif"))
	gone := strings.TrimSuffix(filepath.Base(cifs[0]), ".cif")
	if err := os.Remove(cifs[0]); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_ = runRun(ctx, []string{"--manifest", glob, "--out", out, "--workers", "1"})
	srv := hubtest.New(hubtest.Options{Repo: pubRepo})
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "hf_write")
	err = runPublish(ctx, []string{out, "hf://datasets/" + pubRepo + "/afdb"})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "failed: entry "+gone) || !strings.Contains(err.Error(), "--partial") {
		t.Fatalf("err = %v, want exit 1 naming the failed shard's entry %s", err, gone)
	}
	if wc := srv.WriteCounts(); wc.Commits != 0 || wc.Preuploads != 0 {
		t.Fatalf("%d commits after the refusal", wc.Commits)
	}
	if err := runPublish(ctx, []string{out, "hf://datasets/" + pubRepo + "/afdb", "--partial"}); err != nil {
		t.Fatal(err)
	}
	var shards, card []byte
	for _, f := range srv.Files("") {
		switch {
		case strings.HasPrefix(f.Path, "afdb/data/"):
			shards = append(shards, f.Path+"\n"...)
		case f.Path == "README.md":
			card = f.Data
		}
	}
	if bytes.Count(shards, []byte("\n")) != 1 || !bytes.Contains(card, []byte("**Partial:** 1 shards")) || !bytes.Contains(card, []byte("path: afdb/data/*.parquet")) {
		t.Errorf("partial publish: shards %q; card:\n%s", shards, card)
	}
}

// TestPublishKilled kills a publish process (SIGKILL, the built binary)
// after its second commit, reruns it, and checks that the repository holds
// the run byte for byte and that no content was uploaded twice and no file
// committed twice, over both processes.
func TestPublishKilled(t *testing.T) {
	bin := buildCLI(t)
	out := publishableRun(t)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Latency: 20 * time.Millisecond})
	defer srv.Close()
	env := append(os.Environ(), "HF_ENDPOINT="+srv.URL(), "HF_TOKEN=hf_write")
	args := []string{"publish", out, "hf://datasets/" + pubRepo, "--max-commit-files", "4", "--concurrency", "1"}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for srv.WriteCounts().Commits < 2 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	time.Sleep(200 * time.Millisecond) // let requests in flight land
	wc := srv.WriteCounts()
	if wc.Commits < 2 || wc.Commits > 4 || strings.Contains(stderr.String(), "verified") {
		t.Fatalf("killed after %d commits (want 2 to 4, before the end):\n%s", wc.Commits, stderr.String())
	}
	rerun := exec.Command(bin, args...)
	rerun.Env = env
	msg, err := rerun.CombinedOutput()
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, msg)
	}
	checkPublished(t, srv, out)
	progress := regexp.MustCompile(`files (\d+)/(\d+) committed \(\d+ commits\)  uploaded .* MB/s  ETA`)
	if !progress.Match(msg) || !strings.Contains(string(msg), "verified: every file's size and sha256 at commit "+srv.Commit()) ||
		!strings.Contains(string(msg), srv.URL()+"/datasets/"+pubRepo+"/tree/"+srv.Commit()) {
		t.Errorf("the rerun's output lacks progress, the verified commit or its URL:\n%s", msg)
	}
	after := srv.WriteCounts()
	for oid, n := range after.ObjectUploads {
		if n != 1 {
			t.Errorf("object %s uploaded %d times", oid, n)
		}
	}
	for p, n := range after.PathCommits {
		if n != 1 {
			t.Errorf("%s committed %d times", p, n)
		}
	}
	t.Logf("killed after %d commits; the rerun made %d more", wc.Commits, after.Commits-wc.Commits)
}

// TestPublishNeedsToken: without HF_TOKEN publish stops before reading
// anything, with a usage error saying what to set.
func TestPublishNeedsToken(t *testing.T) {
	t.Setenv("HF_TOKEN", "")
	err := runPublish(context.Background(), []string{t.TempDir(), "hf://datasets/" + pubRepo})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "HF_TOKEN") {
		t.Fatalf("err = %v, want exit 2 naming HF_TOKEN", err)
	}
}

// TestPublishGCS publishes a run whose output is in a bucket (fake-gcs-server
// through STORAGE_EMULATOR_HOST, no ledger: the shard files' names say which
// shards exist): a run missing its last shard is refused, naming it; a
// complete one is published and read back equal.
func TestPublishGCS(t *testing.T) {
	ctx := context.Background()
	fake, client := emulators.RequireFakeGCS(t, "corpus")
	store := gcs.New(client, gcs.Options{})
	cfg := report.SynthConfig{Shards: 6, RowsPerShard: 4, Seed: 2}
	if _, err := report.WriteSynthetic(ctx, store, "gs://corpus/run1", cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Missing = true
	if _, err := report.WriteSynthetic(ctx, store, "gs://corpus/run2", cfg); err != nil {
		t.Fatal(err)
	}
	srv := hubtest.New(hubtest.Options{Repo: pubRepo})
	defer srv.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(fake.URL, "http://"))
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "hf_write")
	err := runPublish(ctx, []string{"gs://corpus/run2", "hf://datasets/" + pubRepo + "/run2"})
	if err == nil || !strings.Contains(err.Error(), "shard 00005 (missing: no file)") {
		t.Fatalf("err = %v, want a refusal naming shard 00005", err)
	}
	if err := runPublish(ctx, []string{"gs://corpus/run1", "hf://datasets/" + pubRepo + "/run1"}); err != nil {
		t.Fatal(err)
	}
	repo := map[string][]byte{}
	for _, f := range srv.Files("") {
		repo[f.Path] = f.Data
	}
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("part-%05d-of-00006.parquet", i)
		want, err := store.ReadAll(ctx, "gs://corpus/run1/"+name)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := repo["run1/data/"+name]; !ok || !bytes.Equal(got, want) {
			t.Errorf("run1/data/%s: %d bytes in the repository, %d in the bucket", name, len(got), len(want))
		}
	}
	if !bytes.Contains(repo["README.md"], []byte("path: run1/data/*.parquet")) {
		t.Errorf("card:\n%s", repo["README.md"])
	}
}
