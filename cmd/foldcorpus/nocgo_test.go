package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/needcgo"
)

// TestBuildWithoutCgoRefuses builds the CLI without cgo (it builds: the
// DuckDB driver and the C maths are left out) and runs it: a run whose
// documents need the C library's maths (contacts-v1 from structures, and the
// default format, contacts-and-distances-v2) and `confind` stop with exit
// status 1 and README's sentence, having written no output (no shard file,
// no ledger), while `version` works. The no-cgo build recompiles the CLI's
// dependencies once (about a minute here on 2 cores; cached after).
func TestBuildWithoutCgoRefuses(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), needcgo.Sentence) {
		t.Errorf("README does not give the refusal's sentence %q", needcgo.Sentence)
	}

	bin := filepath.Join(t.TempDir(), "foldcorpus-nocgo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	t.Logf("CGO_ENABLED=0 go build: %.1fs", time.Since(start).Seconds())

	if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil || !strings.Contains(string(out), "cgo       0") {
		t.Errorf("no-cgo `foldcorpus version`: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"run", "--format", "contacts-v1", "--opt", "rotlib=" + t.TempDir()},
		{"run"}, // contacts-and-distances-v2
		{"confind", "--rotlib", t.TempDir(), "no-such.cif"},
	} {
		out := t.TempDir()
		if args[0] == "run" {
			args = append(args, "--out", out)
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = out
		stdout, err := cmd.Output()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("no-cgo foldcorpus %s: %v, want exit status 1\n%s", strings.Join(args, " "), err, stdout)
			continue
		}
		if want := ": " + needcgo.Sentence + "\n"; !strings.HasSuffix(string(exit.Stderr), want) {
			t.Errorf("no-cgo foldcorpus %s: stderr %q, want it to end %q", strings.Join(args, " "), exit.Stderr, want)
		}
		// The run may write its input (the synthetic sample in _sample/),
		// nothing else: no shard file, no ledger, no report.
		entries, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "_sample" {
				t.Errorf("no-cgo foldcorpus %s wrote %s", strings.Join(args, " "), filepath.Join(out, e.Name()))
			}
		}
	}
}
