package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

func TestProject(t *testing.T) {
	tests := []struct {
		rows      []int64
		instances int
		wantInst  int
		wantMax   int64
	}{
		{[]int64{10, 10, 10, 10}, 512, 4, 10}, // never more instances than shards
		{[]int64{10, 10, 10, 10}, 2, 2, 20},
		{[]int64{30, 10, 10, 10}, 2, 2, 30}, // largest first: 30 | 10+10+10
		{[]int64{5}, 100, 1, 5},
	}
	for _, tt := range tests {
		p := project(tt.rows, tt.instances, 10)
		if p.instances != tt.wantInst || p.maxRows != tt.wantMax || p.wall != time.Duration(tt.wantMax)*time.Second/10 {
			t.Errorf("project(%v, %d) = %+v; want %d instances, busiest %d rows", tt.rows, tt.instances, p, tt.wantInst, tt.wantMax)
		}
	}
}

// TestSmokeProjectsARun runs `smoke` and then `run` over the same shards,
// whose objects are in a bucket (fake-gcs-server behind a proxy that adds
// fetchDelay to every request): smoke fetches through the real GCS path
// (its fetch latency shows the delay), projects with min(instances,
// shards) instances, and its projected wall-clock is close to the run's
// with as many workers. The delay dominates each row's time, so the
// comparison holds on a loaded machine.
func TestSmokeProjectsARun(t *testing.T) {
	const (
		shards, perShard = 4, 6
		fetchDelay       = 25 * time.Millisecond
	)
	fake, client := emulators.RequireFakeGCS(t, "afdb")
	target, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(fetchDelay)
		rp.ServeHTTP(w, r)
	}))
	defer slow.Close()

	dir := t.TempDir()
	for f := 0; f < shards; f++ {
		var rows [][]any
		for k := 0; k < perShard; k++ {
			p := synth.Make(synth.SampleSeed, f*perShard+k, 40, 80)
			upload(t, client, "afdb", "v4/"+p.EntryID+".cif", p.CIF, false)
			rows = append(rows, []any{p.EntryID, "gs://afdb/v4/" + p.EntryID + ".cif"})
		}
		data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, rows, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m-%d.parquet", f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	glob := filepath.Join(dir, "m-*.parquet")
	bin := buildCLI(t)
	runBin := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "STORAGE_EMULATOR_HOST="+slow.URL)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("foldcorpus %v: %v\n%s%s", args, err, o.String(), e.String())
		}
		return o.String(), e.String()
	}
	dur := func(re, s string) time.Duration {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no %q in:\n%s", re, s)
		}
		if d, err := time.ParseDuration(m[1]); err == nil {
			return d
		}
		ms, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("%q: %v", m[1], err)
		}
		return time.Duration(ms * float64(time.Millisecond))
	}

	// As deployed (100 instances): never more instances than shards.
	out, _ := runBin("smoke", "--manifest", glob, "--num-docs", strconv.Itoa(perShard), "--fetch-concurrency", "1")
	if want := fmt.Sprintf("%d rows in %d shards, over %d instances", shards*perShard, shards, shards); !strings.Contains(out, want) {
		t.Errorf("smoke as deployed: no %q in:\n%s", want, out)
	}
	if strings.Contains(out, "kept:") || strings.Contains(out, "foldcorpus-smoke-") {
		t.Errorf("smoke without --out names a path (in a folder it removes):\n%s", out)
	}
	// With --out the timed shard's output is kept, and named.
	keep := filepath.Join(dir, "smoke")
	out, _ = runBin("smoke", "--manifest", glob, "--num-docs", "2", "--out", keep)
	if m := regexp.MustCompile(`kept: (\S+)`).FindStringSubmatch(out); m == nil || !strings.HasPrefix(m[1], keep) {
		t.Errorf("smoke --out %s: no `kept: %s/...` line:\n%s", keep, keep, out)
	} else if _, err := os.Stat(m[1]); err != nil {
		t.Errorf("smoke --out: the output it names is not there: %v", err)
	}
	out, _ = runBin("smoke", "--manifest", glob, "--num-docs", strconv.Itoa(perShard), "--fetch-concurrency", "1", "--instances", "2")
	if fetch := dur(`fetch ([0-9.]+) ms`, out); fetch < fetchDelay {
		t.Errorf("smoke's mean fetch %v < the bucket's added latency %v: not the real fetch path\n%s", fetch, fetchDelay, out)
	}
	if !strings.Contains(out, "objects from GCS") {
		t.Errorf("smoke does not say it fetched from GCS:\n%s", out)
	}
	projected := dur(`projected wall-clock >= (\S+)`, out)

	_, stderr := runBin("run", "--manifest", glob, "--out", filepath.Join(dir, "out"), "--workers", "2", "--fetch-concurrency", "1")
	actual := dur(`docs written now(?: \([^)]*\))? in (\S+);`, stderr)
	ratio := actual.Seconds() / projected.Seconds()
	t.Logf("smoke projected %v for %d shards on 2 instances; run with 2 workers took %v (ratio %.2f)", projected, shards, actual, ratio)
	if ratio < 0.5 || ratio > 2.5 {
		t.Errorf("run took %v, smoke projected %v (ratio %.2f): want the projection within [0.5, 2.5] of the run\n%s", actual, projected, ratio, out)
	}
}

// TestSmokeHelp: smoke's help is its own, with its own defaults.
func TestSmokeHelp(t *testing.T) {
	help, _, code := runCLI(t, "smoke", "-h")
	if code != 0 {
		t.Fatalf("smoke -h: exit %d", code)
	}
	for _, want := range []string{"usage: foldcorpus smoke", "-instances int", "(default 100)", "-instance-hour-usd"} {
		if !strings.Contains(help, want) {
			t.Errorf("smoke -h has no %q:\n%s", want, help)
		}
	}
	if m := regexp.MustCompile(`-num-docs int\n.*\(default (\d+)\)`).FindStringSubmatch(help); m == nil || m[1] != "100" {
		t.Errorf("smoke -h: --num-docs default %v, want 100 (smoke times 100 rows unless told):\n%s", m, help)
	}
	if strings.Contains(help, "sample: its size") {
		t.Errorf("smoke -h shows run's text for --num-docs:\n%s", help)
	}
}
