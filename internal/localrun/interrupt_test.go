package localrun_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/synth"
	"github.com/foldcorpus/foldcorpus/planner"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

const (
	sampleRows   = 600
	sampleShards = 12
)

// sample writes the synthetic manifest shared by the interruption tests.
func sample(t *testing.T) string {
	t.Helper()
	glob, err := synth.WriteSample(context.Background(), localblob.Store{}, filepath.Join(t.TempDir(), "sample"), sampleRows, sampleShards, false)
	if err != nil {
		t.Fatal(err)
	}
	return glob
}

func spec(glob, out string) planner.Spec {
	return planner.Spec{Manifest: glob, Format: "contacts-and-distances-v2", Output: out}
}

// doneShards returns the done shard records of the folder's only run.
func doneShards(t *testing.T, out string) map[int]ledger.Shard {
	t.Helper()
	runs, shards, err := localledger.Snapshot(filepath.Join(out, localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	done := map[int]ledger.Shard{}
	for _, r := range runs {
		for _, s := range shards[r.ID] {
			if s.Status == ledger.Done {
				done[s.Index] = s
			}
		}
	}
	return done
}

// checkOutputs compares every output file of out with ref's, byte for byte,
// and checks that no partial or temporary file is left.
func checkOutputs(t *testing.T, ref, out string) {
	t.Helper()
	want, _ := filepath.Glob(filepath.Join(ref, "part-*.parquet"))
	got, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	if len(want) != sampleShards || len(got) != len(want) {
		t.Fatalf("outputs: %d in the reference, %d after resume; want %d", len(want), len(got), sampleShards)
	}
	for _, w := range want {
		a, _ := os.ReadFile(w)
		b, err := os.ReadFile(filepath.Join(out, filepath.Base(w)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from the uninterrupted run (%v)", filepath.Base(w), err)
		}
	}
	temps, _ := filepath.Glob(filepath.Join(out, localblob.TempPrefix+"*"))
	if len(temps) > 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// checkNotRedone checks that shards done before the interruption kept their
// ledger records (not claimed or completed again).
func checkNotRedone(t *testing.T, before, after map[int]ledger.Shard) {
	t.Helper()
	if len(after) != sampleShards {
		t.Errorf("%d shards done after resume, want %d", len(after), sampleShards)
	}
	for i, b := range before {
		a := after[i]
		if a.Attempts != b.Attempts || !a.Finished.Equal(b.Finished) || a.SHA256 != b.SHA256 {
			t.Errorf("shard %d was processed again after it was done: before %+v, after %+v", i, b, a)
		}
	}
}

func reference(t *testing.T, glob string) string {
	t.Helper()
	ref := filepath.Join(t.TempDir(), "ref")
	if _, err := localrun.Run(context.Background(), localrun.Config{Spec: spec(glob, ref), Parse: mmcif.ReadInto}); err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	return ref
}

func TestResumeAfterCancel(t *testing.T) {
	glob := sample(t)
	ref := reference(t, glob)
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	n := 0
	_, err := localrun.Run(ctx, localrun.Config{Spec: spec(glob, out), Parse: mmcif.ReadInto, Workers: 2,
		OnShard: func(res shardfn.Result, err error) {
			mu.Lock()
			defer mu.Unlock()
			if n++; n == 3 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run = %v, want context.Canceled", err)
	}
	before := doneShards(t, out)
	if len(before) == 0 || len(before) >= sampleShards {
		t.Fatalf("%d shards done at the interruption, want some but not all", len(before))
	}
	var redone []int
	sum, err := localrun.Run(context.Background(), localrun.Config{Spec: spec(glob, out), Parse: mmcif.ReadInto,
		OnShard: func(res shardfn.Result, err error) {
			mu.Lock()
			defer mu.Unlock()
			if _, ok := before[res.Shard.Index]; ok {
				redone = append(redone, res.Shard.Index)
			}
		}})
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	if len(redone) > 0 || sum.AlreadyDone != len(before) || sum.Done != sampleShards-len(before) {
		t.Errorf("resume: processed done shards %v; summary done %d already %d, want %d and %d", redone, sum.Done, sum.AlreadyDone, sampleShards-len(before), len(before))
	}
	checkNotRedone(t, before, doneShards(t, out))
	checkOutputs(t, ref, out)
}

func TestResumeAfterKill(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("needs SIGKILL")
	}
	glob := sample(t)
	bin := filepath.Join(t.TempDir(), "foldcorpus")
	// -buildvcs=false: the outputs record the build's version, and the
	// reference run below is this test binary, which has no VCS stamp
	// ("devel"); the resumed run must be the same build to give the same bytes.
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "github.com/foldcorpus/foldcorpus/cmd/foldcorpus")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, b)
	}
	ref := reference(t, glob)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"run", "--manifest", glob, "--out", out, "--workers", "1", "--fetch-concurrency", "4"}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no shard done after 60 s:\n%s", stderr.String())
		}
		if _, err := os.Stat(filepath.Join(out, localledger.FileName)); err == nil && len(doneShards(t, out)) >= 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v before the kill; stderr:\n%s", err, stderr.String())
	}
	before := doneShards(t, out)
	if len(before) >= sampleShards {
		t.Fatalf("all shards done before the kill; make the sample larger")
	}
	// Every visible output file is complete (readable footer), done or not.
	files, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	for _, f := range files {
		if _, err := corpus.ReadMeta(context.Background(), localblob.Store{}, f); err != nil {
			t.Errorf("partial output visible after kill -9: %v", err)
		}
	}
	res, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("rerun: %v\n%s", err, res)
	}
	if !strings.Contains(string(res), "already done") {
		t.Errorf("rerun output does not report done shards:\n%s", res)
	}
	checkNotRedone(t, before, doneShards(t, out))
	checkOutputs(t, ref, out)
	status, err := exec.Command(bin, "status", out).CombinedOutput()
	if err != nil || !strings.Contains(string(status), "COMPLETE") {
		t.Errorf("status after resume: %v\n%s", err, status)
	}
}
