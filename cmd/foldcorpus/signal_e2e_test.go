//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls cond every 50 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestCLIRunSignalsWhileFetchBlocked runs the built binary on a manifest
// whose one row is a named pipe nobody writes, so that the fetch blocks in
// the kernel as on a hung NFS or FUSE mount (issue 53). The first signal
// must say what the run waits for (shard and URI) and start a stop; the
// second must exit at once, non-zero, with no shard file written and the
// shard left resumable (not running under a lease, never done).
func TestCLIRunSignalsWhileFetchBlocked(t *testing.T) {
	for _, sigs := range [][]os.Signal{{syscall.SIGTERM, syscall.SIGTERM}, {os.Interrupt, os.Interrupt}} {
		t.Run(sigs[0].String(), func(t *testing.T) { testSignalsWhileBlocked(t, sigs) })
	}
}

func testSignalsWhileBlocked(t *testing.T, sigs []os.Signal) {
	bin := buildCLI(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "hung.cif")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}},
		[][]any{{"AF-HUNG-F1", fifo}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "m.parquet")
	if err := os.WriteFile(m, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr lockedBuffer
	cmd := exec.Command(bin, "run", "--manifest", m, "--out", out)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		// unblock a reader that might still hold the pipe open
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	// Wait until the run is planned and its shard is fetching.
	if !waitFor(60*time.Second, func() bool { return strings.Contains(stderr.String(), "1 to process") }) {
		t.Fatalf("the run did not start within 60 s; stderr:\n%s", stderr.String())
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(sigs[0]); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool { return strings.Contains(stderr.String(), fifo) }) {
		t.Fatalf("10 s after the first %v, stderr does not name the URI the run waits for (%s):\n%s", sigs[0], fifo, stderr.String())
	}
	first := stderr.String()
	if !strings.Contains(first, "shard 0") {
		t.Errorf("after the first signal, stderr does not name the shard waited for:\n%s", first)
	}
	select {
	case err := <-exited:
		t.Fatalf("the run exited after the first signal although its fetch cannot end (%v); stderr:\n%s", err, first)
	default:
	}
	sent := time.Now()
	if err := cmd.Process.Signal(sigs[1]); err != nil {
		t.Fatal(err)
	}
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("the run did not exit within 10 s of the second %v; stderr:\n%s", sigs[1], stderr.String())
	}
	t.Logf("exited %v after the second signal; stderr:\n%s", time.Since(sent).Round(time.Millisecond), stderr.String())
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() == 0 {
		t.Errorf("exit: %v, want a non-zero exit status", werr)
	}
	if parts, _ := filepath.Glob(filepath.Join(out, "part-*")); len(parts) > 0 {
		t.Errorf("shard files written by an interrupted run: %v", parts)
	}
	if tmps, _ := filepath.Glob(filepath.Join(out, ".foldcorpus-tmp-*")); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
	_, shards, err := localledger.Snapshot(filepath.Join(out, localledger.FileName))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ss := range shards {
		for _, s := range ss {
			n++
			if s.Status != ledger.Pending {
				t.Errorf("shard %d is %s after the second signal, want pending (released: a rerun resumes it at once)", s.Index, s.Status)
			}
		}
	}
	if n != 1 {
		t.Errorf("ledger holds %d shard records, want 1", n)
	}
	// A rerun resumes the shard at once: feed the pipe a structure this time.
	cif, err := os.ReadFile(writeCIF(t, dir, 0))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_, _ = f.Write(cif)
			f.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rerun := exec.CommandContext(ctx, bin, "run", "--manifest", m, "--out", out)
	if b, err := rerun.CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, b)
	}
	if parts, _ := filepath.Glob(filepath.Join(out, "part-*.parquet")); len(parts) != 1 {
		t.Errorf("after the rerun: shard files %v, want 1", parts)
	}
}

// TestCLIStatusAfterCtrlC interrupts a run once, as a plain Ctrl-C does,
// after a shard is done (issue 53): the run must release the shard it held
// (no shard left running under a lease), and status must say to rerun the
// same command, without talking about --num-docs.
func TestCLIStatusAfterCtrlC(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	glob, err := synth.WriteSample(context.Background(), localblob.Store{}, filepath.Join(dir, "sample"), 1200, 12, false)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr lockedBuffer
	cmd := exec.Command(bin, "run", "--manifest", glob, "--out", out, "--workers", "1", "--fetch-concurrency", "1")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	ledgerPath := filepath.Join(out, localledger.FileName)
	done := func() (n int, running int) {
		_, shards, err := localledger.Snapshot(ledgerPath)
		if err != nil {
			return 0, 0
		}
		for _, ss := range shards {
			for _, s := range ss {
				switch s.Status {
				case ledger.Done:
					n++
				case ledger.Running:
					running++
				}
			}
		}
		return n, running
	}
	if !waitFor(60*time.Second, func() bool { n, _ := done(); return n >= 1 }) {
		t.Fatalf("no shard done after 60 s:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run: %v, want exit status 130; stderr:\n%s", err, stderr.String())
	}
	n, running := done()
	if n >= 12 {
		t.Fatalf("every shard was done before the interrupt; make the sample larger")
	}
	if running > 0 {
		t.Errorf("%d shard(s) left running after the interrupt: a rerun waits out their lease", running)
	}
	status, _ := exec.Command(bin, "status", out).CombinedOutput()
	if strings.Contains(string(status), "num-docs") || !strings.Contains(string(status), "rerun the same") {
		t.Errorf("status after a plain interrupt should say to rerun the same command, not talk about --num-docs:\n%s", status)
	}
}

// TestProgressETAWaits checks that the progress line gives no ETA from the
// first few rows (issue 53: 1h28m from one document, then 36 s).
func TestProgressETAWaits(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, false)
	p.totalRows = 1000
	p.shards = 10
	p.row("doc", 1)
	p.draw(true)
	if line := b.String(); !strings.Contains(line, "ETA") || regexp.MustCompile(`ETA [0-9]`).MatchString(line) {
		t.Errorf("an ETA from one row of 1000: %q", line)
	}
	b.Reset()
	for i := 0; i < 99; i++ {
		p.rows.Add(1)
		p.docs.Add(1)
	}
	p.shardsDone.Add(1)
	p.draw(true)
	if line := b.String(); !regexp.MustCompile(`ETA [0-9]`).MatchString(line) {
		t.Errorf("no ETA once a shard and 10%% of the rows are done: %q", line)
	}
}
