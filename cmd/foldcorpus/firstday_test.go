package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/report"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// sampleManifest writes the synthetic sample (n structures, files manifest
// files) under dir/sample and returns its manifest folder.
func sampleManifest(t *testing.T, dir string, n, files int) string {
	t.Helper()
	glob, err := synth.WriteSample(context.Background(), localblob.Store{}, filepath.Join(dir, "sample"), n, files, false)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(glob)
}

func mustNotExist(t *testing.T, path, why string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		t.Errorf("%s exists after %s", path, why)
	}
}

// noGoChain fails when a message shows Go call chains or classification
// prefixes instead of saying what failed.
func noGoChain(t *testing.T, what, msg string) {
	t.Helper()
	for _, bad := range []string{"localrun.Run", "planner.Prepare", "manifest.ReadSchema", "permanent failure", "map["} {
		if strings.Contains(msg, bad) {
			t.Errorf("%s: message shows %q:\n%s", what, bad, msg)
		}
	}
}

func TestCLIDuplicateIDsRefused(t *testing.T) {
	dir := t.TempDir()
	mdir := sampleManifest(t, dir, 8, 2)
	m0 := filepath.Join(mdir, "sample-00000.parquet")
	data, err := os.ReadFile(m0)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(mdir, "sample-00009.parquet") // sorts after sample-00000 and -00001
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code := runCLI(t, "run", "--manifest", filepath.Join(mdir, "*.parquet"), "--out", out)
	if code == 0 || !strings.Contains(stderr, m0+" row 0 and "+copyPath+" row 0") || !strings.Contains(stderr, "--allow-duplicate-ids") {
		t.Fatalf("run over a manifest with duplicate ids: exit %d, want non-zero naming %s row 0 and %s row 0:\n%s", code, m0, copyPath, stderr)
	}
	noGoChain(t, "duplicate ids", stderr)
	mustNotExist(t, out, "a refused run")
	if _, stderr, code := runCLI(t, "run", "--manifest", filepath.Join(mdir, "*.parquet"), "--out", out, "--allow-duplicate-ids"); code != 0 {
		t.Fatalf("run --allow-duplicate-ids: exit %d:\n%s", code, stderr)
	}
}

func TestCLIRefusedBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	mdir := sampleManifest(t, dir, 4, 2)
	glob := filepath.Join(mdir, "*.parquet")
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
		out  string // must not exist afterwards ("" : not checked)
	}{
		{"out not writable", []string{"--manifest", glob, "--out", filepath.Join(file, "out")}, "output folder not writable: " + filepath.Join(file, "out") + ": not a directory; choose another --out", ""},
		{"out is the manifest folder", []string{"--manifest", glob, "--out", mdir}, "is the folder of manifest", ""},
		{"missing glob", []string{"--manifest", filepath.Join(dir, "nope", "*.parquet"), "--out", filepath.Join(dir, "o1")}, "no manifest files match", filepath.Join(dir, "o1")},
		{"missing column", []string{"--manifest", glob, "--cif-uri-column", "nosuch", "--out", filepath.Join(dir, "o2")}, `missing required column "nosuch"`, filepath.Join(dir, "o2")},
		{"negative num-docs", []string{"--manifest", glob, "--num-docs", "-5", "--out", filepath.Join(dir, "o3")}, "--num-docs -5", filepath.Join(dir, "o3")},
		{"unquoted glob", []string{"--manifest", filepath.Join(mdir, "sample-00000.parquet"), filepath.Join(mdir, "sample-00001.parquet"), "--out", filepath.Join(dir, "o4")}, "quote the glob", filepath.Join(dir, "o4")},
	} {
		_, stderr, code := runCLI(t, append([]string{"run"}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want non-zero saying %q:\n%s", tc.name, code, tc.want, stderr)
		}
		noGoChain(t, tc.name, stderr)
		if tc.out != "" {
			mustNotExist(t, tc.out, tc.name)
		}
	}
	if entries, _ := os.ReadDir(mdir); len(entries) != 2 {
		t.Errorf("the manifest folder holds %d entries after the refused runs, want its 2 files", len(entries))
	}
	// A folder is its *.parquet files.
	if _, stderr, code := runCLI(t, "run", "--manifest", mdir, "--out", filepath.Join(dir, "o5")); code != 0 {
		t.Errorf("run --manifest DIR: exit %d:\n%s", code, stderr)
	}
}

// A run whose shard fails counts only the documents written, its report
// does not call it balanced, and status advises a new --out (a rerun fails
// the same rows again).
func TestCLIFailedShardCountsAndAdvice(t *testing.T) {
	dir := t.TempDir()
	mdir := sampleManifest(t, dir, 8, 2)
	cifs, _ := filepath.Glob(filepath.Join(dir, "sample", "cif", "*.cif"))
	if err := os.Remove(cifs[0]); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code := runCLI(t, "run", "--manifest", filepath.Join(mdir, "*.parquet"), "--out", out, "--workers", "1")
	if code == 0 {
		t.Fatalf("run with a missing object: exit 0:\n%s", stderr)
	}
	m := regexp.MustCompile(`(\d+) docs written now in`).FindStringSubmatch(stderr)
	js, err := os.ReadFile(filepath.Join(out, "report", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s report.Summary
	if err := json.Unmarshal(js, &s); err != nil {
		t.Fatal(err)
	}
	if m == nil || m[1] != strconv.FormatInt(s.Documents, 10) || s.Documents != 4 {
		t.Errorf("summary line %q; the output holds %d documents (want 4, one shard)\n%s", m, s.Documents, stderr)
	}
	page, _ := os.ReadFile(filepath.Join(out, "report", "index.html"))
	if s.Accounting.Complete || !strings.Contains(string(page), "INCOMPLETE") {
		t.Errorf("report of a run with a failed shard: complete %v, headline INCOMPLETE %v", s.Accounting.Complete, strings.Contains(string(page), "INCOMPLETE"))
	}
	stdout, _, code := runCLI(t, "status", out)
	if code == 0 || !strings.Contains(stdout, "failed permanently") || strings.Contains(stdout, "rerun the same `foldcorpus run` command to resume") {
		t.Errorf("status of a permanently failed shard: exit %d, want advice that a rerun fails again:\n%s", code, stdout)
	}
}

func TestCLIStatusLedgerAndPartialRun(t *testing.T) {
	dir := t.TempDir()
	mdir := sampleManifest(t, dir, 8, 4)
	ledger := filepath.Join(dir, "ledgers", "l.jsonl")
	out := filepath.Join(dir, "out")
	runOut, runErr, code := runCLI(t, "run", "--manifest", filepath.Join(mdir, "*.parquet"), "--out", out, "--ledger", ledger, "--num-docs", "3")
	if code != 0 || !strings.Contains(runOut, "status --ledger "+ledger) { // results (output:) go to stdout
		t.Fatalf("run --ledger: exit %d, want 0 and a pointer to status --ledger on stdout:\n%s%s", code, runOut, runErr)
	}
	stdout, stderr, code := runCLI(t, "status", "--ledger", ledger)
	if code != 1 || !strings.Contains(stdout, "2 done, 0 failed, 2 missing") || !strings.Contains(stdout, "never started") || !strings.Contains(stdout, "without --num-docs") {
		t.Errorf("status --ledger after --num-docs 3: exit %d, want 1 with 2 done, 2 never started and the --num-docs advice:\n%s%s", code, stdout, stderr)
	}
	help, _, code := runCLI(t, "status", "-h")
	for _, flag := range []string{"-json", "-ledger", "-run", "-project", "-region"} {
		if code != 0 || !strings.Contains(help, "  "+flag+" ") && !strings.Contains(help, "  "+flag+"\n") {
			t.Errorf("status -h (exit %d) does not show %s:\n%s", code, flag, help)
		}
	}
}

func TestCLIHelpTexts(t *testing.T) {
	run, _, _ := runCLI(t, "run", "-h")
	if !strings.Contains(run, "Builds a corpus on this machine") || !strings.Contains(run, "-allow-duplicate-ids") {
		t.Errorf("run -h has no description or no --allow-duplicate-ids:\n%s", run)
	}
	sel, _, _ := runCLI(t, "select", "-h")
	if !strings.Contains(sel, "required columns: entry_id, gcs_uri, split, struct_cluster_id, global_plddt, seq_len") {
		t.Errorf("select -h does not list its required columns:\n%s", sel)
	}
	dir := t.TempDir()
	_, stderr, code := runCLI(t, "select", "--input", filepath.Join(dir, "none-*.parquet"), "--out", filepath.Join(dir, "sel"))
	if code == 0 || strings.Contains(stderr, "usage:") || strings.Contains(stderr, "-min-cluster-size") {
		t.Errorf("select on a data error: exit %d, want non-zero without the usage:\n%s", code, stderr)
	}
}

func TestCLIPassthroughHint(t *testing.T) {
	dir := t.TempDir()
	mdir := sampleManifest(t, dir, 4, 1)
	_, stderr, code := runCLI(t, "run", "--manifest", mdir, "--out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, stderr)
	}
	keep := regexp.MustCompile(`(?m)^manifest columns not in the output: (.*) \(name the ones to keep with --passthrough\)$`).FindStringSubmatch(stderr)
	if keep != nil && strings.Contains(keep[1], "global_plddt") {
		t.Errorf("the hint offers global_plddt to --passthrough, which refuses it:\n%s", stderr)
	}
	if !strings.Contains(stderr, "manifest columns replaced by the format's own, computed from the structure: seq_len, global_plddt (--passthrough cannot keep them)") {
		t.Errorf("the hint does not say the format writes global_plddt itself:\n%s", stderr)
	}
}
