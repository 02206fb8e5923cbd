package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/bench"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestBenchSmoke runs every `foldcorpus-bench` kind once on tiny inputs, so
// that the benchmarks the notes quote cannot rot: each must exit 0 and print
// its side-by-side figure. The figures themselves are not asserted (machines
// are noisy); the full-size runs are done by hand. Every kind of the table
// must have a case.
func TestBenchSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	corpus := testcorpus.Dir(t)
	// The shard and select benchmarks re-run the binary itself for each
	// measured child, so the test runs the built bench binary; the kinds
	// that measure user commands find the CLI built beside it.
	dir := t.TempDir()
	bin := filepath.Join(dir, "foldcorpus-bench")
	for pkg, out := range map[string]string{".": bin, "../foldcorpus": filepath.Join(dir, "foldcorpus")} {
		if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
		}
	}
	t.Setenv(bench.CLIEnv, "")
	// three AFDB files and the mini library for bench confind
	few := t.TempDir()
	for _, name := range []string{"AF-P0CL56-F1-model_v4.cif", "AF-C1P619-F1-model_v6.cif", "AF-A0A023HJ61-F1-model_v4.cif"} {
		if err := os.Symlink(filepath.Join(corpus, "afdb", name), filepath.Join(few, name)); err != nil {
			t.Fatal(err)
		}
	}
	// a stand-in MarinFold checkout for docs --marinfold: its documents
	// are not ours (0 identical), but it runs after each group of reps
	standIn := filepath.Join(t.TempDir(), "mf")
	if err := bench.WriteMarinFoldStandIn(standIn); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind string
		args []string
		want string // a word of the side-by-side line
	}{
		{"parse", []string{"--trials", "1", "--reps", "1", filepath.Join(corpus, "afdb")}, "gemmi"},
		{"docs", []string{"--reps", "1", "--baseline-reps", "0", filepath.Join(corpus, "afdb")}, "reference"},
		{"docs", []string{"--format", "contacts-and-crops-v1", "--reps", "1", "--baseline-reps", "0", filepath.Join(corpus, "afdb")}, "per document"},
		{"docs", []string{"--format", "contacts-v1", "--reps", "1", "--baseline-reps", "0", filepath.Join(corpus, "golden")}, "reference"},
		// 4 reps: a group of 3 and a short one, the stand-in beside each
		{"docs", []string{"--format", "contacts-and-coordinates-v1", "--reps", "4", "--baseline-reps", "1", "--marinfold", standIn,
			filepath.Join(corpus, "afdb")}, "side by side, run after each group"},
		// a 64-row shard is too small and too noisy for the overlap target
		{"shard", []string{"--rows", "64", "--latency", "5ms", "--repeat", "1", "--seq-rows", "8", "--enforce=false"}, "floor"},
		{"select", []string{"--rows", "20000", "--files", "2", "--trials", "1"}, "baseline"},
		{"report", []string{"--shards", "20", "--trials", "1"}, "baseline"},
		{"run", []string{"--docs", "40", "--shards", "2", "--reps", "1", "--cpuprofile", t.TempDir(), filepath.Join(corpus, "afdb")}, "so run costs at least"},
		{"function", []string{"--reps", "1", "--stripped-only", "--source", "../.."}, "cold start"},
		{"cloud", []string{"--shards", "4", "--rows", "5", "--timeout", "5m", "--source", "../.."}, "0 lost, 0 duplicated"},
		{"confind", []string{"--reps", "1", "--rotlib", filepath.Join(corpus, "golden", "confind-mini-rotlib"), few}, "gemmi"},
		{"pdb", []string{"--corpus", corpus, "--reps", "1"}, "side by side"},
		{"inspect", []string{"--files", "4", "--reps", "1", filepath.Join(corpus, "afdb")}, "gemmi"},
		{"inspect", []string{"--pdb", "--files", "4", "--reps", "1", filepath.Join(corpus, "afdb")}, "pdb/mmcif per atom"},
		// 2 rows a batch: the job's 32 took 25 s a batch on CI's cores
		{"tokenize", []string{"--corpus", corpus, "--reps", "1", "--stream", "200", "--shard-rows", "10", "--batch", "2"}, "projection"},
		{"fetch-manifest", []string{"--files", "4", "--rows", "8", "--latency", "1ms", "--repeat", "1"}, "floor"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.kind] = true
	}
	for _, k := range kinds {
		if !covered[k.name] {
			t.Errorf("kind %s has no smoke case", k.name)
		}
	}
	for _, c := range cases {
		t.Run(c.kind+"/"+strings.Join(c.args[:2], ""), func(t *testing.T) {
			if c.kind == "cloud" {
				// the Pub/Sub and Firestore emulators, which bench cloud starts
				for _, k := range []emulators.Kind{emulators.PubSub, emulators.Firestore} {
					if err := emulators.Installed(k); err != nil {
						if emulators.InCI() {
							t.Fatalf("CI=true and the %s emulator is missing: %v", k, err)
						}
						t.Skipf("SKIP (loud): the %s emulator is not installed here: %v", k, err)
					}
				}
			}
			out, err := exec.Command(bin, append([]string{c.kind}, c.args...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("foldcorpus-bench %s %v: %v\n%s", c.kind, c.args, err, out)
			}
			if !strings.Contains(strings.ToLower(string(out)), c.want) {
				t.Errorf("foldcorpus-bench %s printed no %q line:\n%s", c.kind, c.want, out)
			}
		})
	}
}
