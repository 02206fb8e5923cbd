package bench

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
)

// TestCloudSmall runs `bench cloud` with a small N (CI's size; the real
// figures come from running it by hand with --shards 1000 or 12005): every
// shard done, no row lost or duplicated, or Cloud returns an error.
func TestCloudSmall(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	err := Cloud(context.Background(), []string{"--shards", "4", "--rows", "3", "--source", root})
	if errors.Is(err, emulators.ErrNotInstalled) && !emulators.InCI() {
		t.Skipf("SKIP (loud): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestCloudFaultsSmall runs `bench cloud --faults` at CI's size: every
// fault kind injected at least once, and the run ends with the verify line
// (0 lost, 0 duplicated, every document equal to the fault-free run's), or
// Cloud returns an error.
func TestCloudFaultsSmall(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	out, err := captureStdout(t, func() error {
		return Cloud(context.Background(), []string{"--faults", "--shards", "20", "--rows", "2", "--source", root, "--timeout", "5m"})
	})
	if errors.Is(err, emulators.ErrNotInstalled) && !emulators.InCI() {
		t.Skipf("SKIP (loud): %v", err)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^verify: 40 rows, 0 lost, 0 duplicated, 40 documents equal$`).MatchString(out) {
		t.Errorf("no summary line `verify: 40 rows, 0 lost, 0 duplicated, 40 documents equal` in:\n%s", out)
	}
	for _, kind := range []string{`(\d+) SIGKILLs of the shard instance \((\d+) mid-shard\)`, `planner killed mid-plan/publish (\d+)`,
		`(\d+) published twice`, `(\d+) delivered twice concurrently`, `zombies: (\d+) deliveries`, `(\d+) x 429`, `(\d+) x 503`,
		`(\d+) connections reset before`, `(\d+) reset mid-body`, `(\d+) writes applied with the answer lost`,
		`(\d+) commits ABORTED, (\d+) UNAVAILABLE, (\d+) applied with the answer lost`} {
		m := regexp.MustCompile(kind).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("no count %q in the output", kind)
			continue
		}
		for _, n := range m[1:] {
			if v, _ := strconv.Atoi(n); v < 1 {
				t.Errorf("%s: %s injected, want at least 1", m[0], n)
			}
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

// captureStdout runs f with os.Stdout going to a pipe, and returns what it
// printed.
func captureStdout(t *testing.T, f func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		var b strings.Builder
		io.Copy(&b, r)
		done <- b.String()
	}()
	ferr := f()
	os.Stdout = old
	w.Close()
	return <-done, ferr
}
