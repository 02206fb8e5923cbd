package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// These tests run the built CLI, as a user does: exit codes, help texts and
// what the commands print.

var cli struct {
	once sync.Once
	bin  string
	err  error
	out  []byte
}

// buildCLI builds the foldcorpus binary once per test process.
func buildCLI(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	cli.once.Do(func() {
		dir, err := os.MkdirTemp("", "foldcorpus-cli-")
		if err != nil {
			cli.err = err
			return
		}
		cli.bin = filepath.Join(dir, "foldcorpus")
		cli.out, cli.err = exec.Command("go", "build", "-o", cli.bin, ".").CombinedOutput()
	})
	if cli.err != nil {
		t.Fatalf("go build: %v\n%s", cli.err, cli.out)
	}
	return cli.bin
}

// runCLI runs the binary and returns its stdout, stderr and exit status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := buildCLI(t)
	var o, e bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("foldcorpus %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// writeCIF writes synthetic structure i of the sample as FILE.cif in dir.
func writeCIF(t *testing.T, dir string, i int) string {
	t.Helper()
	p := synth.Make(synth.SampleSeed, i, 40, 120)
	path := filepath.Join(dir, p.EntryID+".cif")
	if err := os.WriteFile(path, p.CIF, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCLIHelpExitsZero(t *testing.T) {
	cases := [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "run"}, {"bench", "-h"}, {"bench", "help"}}
	for name := range commands {
		cases = append(cases, []string{name, "-h"}, []string{name, "--help"}, []string{"help", name})
	}
	for _, args := range cases {
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 || strings.Contains(stderr, "help requested") || len(stdout)+len(stderr) == 0 {
			t.Errorf("foldcorpus %s: exit %d, stderr %q; want exit 0 with a help text and no error", strings.Join(args, " "), code, stderr)
		}
	}
	// Usage errors still exit 2.
	for _, args := range [][]string{{}, {"no-such-command"}, {"run", "--no-such-flag"}, {"doc"}} {
		if _, _, code := runCLI(t, args...); code != 2 {
			t.Errorf("foldcorpus %s: exit %d, want 2 (usage error)", strings.Join(args, " "), code)
		}
	}
}

// TestCLIFlagsAnywhere: flags after the arguments are flags, as before them.
func TestCLIFlagsAnywhere(t *testing.T) {
	dir := t.TempDir()
	cif := writeCIF(t, dir, 0)
	for _, args := range [][]string{{"inspect", "--json", cif}, {"inspect", cif, "--json"}} {
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "{") {
			t.Errorf("foldcorpus %s: exit %d, stdout %.80q, stderr %q; want a JSON line", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	stdout, stderr, code := runCLI(t, "doc", cif, "--entry-id", "after-the-file")
	if code != 0 || !strings.Contains(stdout, `"entry_id":"after-the-file"`) {
		t.Errorf("doc FILE --entry-id X: exit %d, stdout %.200q, stderr %q", code, stdout, stderr)
	}
	// "--" ends the flags: a file named like a flag is a file.
	if _, stderr, code := runCLI(t, "doc", "--", "--json"); code != 1 || !strings.Contains(stderr, "1 of 1 files failed") {
		t.Errorf("doc -- --json: exit %d, stderr %q; want the file --json to fail (exit 1)", code, stderr)
	}
}

// TestCLIDoc: the exit status is 1 when any file fails (a missing file
// too), every file still gets its line, and -h lists only the formats doc
// accepts.
func TestCLIDoc(t *testing.T) {
	dir := t.TempDir()
	cif := writeCIF(t, dir, 1)
	missing := filepath.Join(dir, "missing.cif")
	tests := []struct {
		files    []string
		code     int
		outcomes []string
	}{
		{[]string{cif}, 0, []string{"document"}},
		{[]string{missing}, 1, []string{"error"}},
		{[]string{cif, missing, cif}, 1, []string{"document", "error", "document"}},
	}
	for _, tt := range tests {
		stdout, stderr, code := runCLI(t, append([]string{"doc"}, tt.files...)...)
		var outcomes []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var d docLine
			if err := json.Unmarshal([]byte(l), &d); err != nil {
				t.Fatalf("doc %v: bad line %.80q: %v", tt.files, l, err)
			}
			outcomes = append(outcomes, d.Outcome)
		}
		if code != tt.code || strings.Join(outcomes, ",") != strings.Join(tt.outcomes, ",") {
			t.Errorf("doc %v: exit %d, outcomes %v (stderr %q); want exit %d, outcomes %v", tt.files, code, outcomes, stderr, tt.code, tt.outcomes)
		}
	}
	help, _, code := runCLI(t, "doc", "-h")
	if code != 0 {
		t.Errorf("doc -h: exit %d", code)
	}
	for _, name := range formatRegistry.Names() {
		info, err := formatRegistry.Describe(name)
		if err != nil {
			t.Fatal(err)
		}
		listed := strings.Contains(help, name)
		if reads := info.Input == format.FromStructure || structureOption(name) != ""; listed != reads {
			t.Errorf("doc -h lists %s: %v; want %v (doc accepts only formats that read structures, some with an option)", name, listed, reads)
		}
		// bio2token-v2 then asks for its weights: accepted, not refused.
		_, stderr, code := runCLI(t, "doc", "--format", name, cif)
		if refused := strings.Contains(stderr, "the format must be one of"); refused == listed || refused && code != 2 {
			t.Errorf("doc --format %s: exit %d (%s); listed in doc -h: %v", name, code, stderr, listed)
		}
	}
}

// TestCLIDocEntryID: `doc --entry-id` reproduces the document `run` writes
// for a manifest row with that entry_id (the seed), which differs from the
// one seeded by the file's block name.
func TestCLIDocEntryID(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cif := writeCIF(t, dir, 2)
	const id = "my-entry-7"
	data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}},
		[][]any{{id, "file://" + cif}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "m.parquet")
	if err := os.WriteFile(m, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, stderr, code := runCLI(t, "run", "--manifest", m, "--out", out); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var runSHA1 string
	err = corpus.Read(ctx, localblob.Store{}, filepath.Join(out, "part-00000-of-00001.parquet"), []string{"entry_id", "sha1"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			if v[0] == id {
				runSHA1 = v[1].(string)
			}
		}
		return nil
	})
	if err != nil || runSHA1 == "" {
		t.Fatalf("run output has no row %s: %v", id, err)
	}
	docSHA1 := func(args ...string) string {
		stdout, stderr, code := runCLI(t, append([]string{"doc"}, args...)...)
		var d docLine
		if err := json.Unmarshal([]byte(stdout), &d); code != 0 || err != nil {
			t.Fatalf("doc %v: exit %d, %v\n%s", args, code, err, stderr)
		}
		return d.SHA1
	}
	if got := docSHA1("--entry-id", id, cif); got != runSHA1 {
		t.Errorf("doc --entry-id %s: sha1 %s, run wrote %s", id, got, runSHA1)
	}
	if got := docSHA1(cif); got == runSHA1 {
		t.Errorf("doc without --entry-id gives run's sha1 %s too: the seed does not show", got)
	}
	if _, _, code := runCLI(t, "doc", "--entry-id", id, cif, cif); code != 2 {
		t.Errorf("doc --entry-id with two files: exit %d, want 2", code)
	}
}

// TestCLIRunProgressAndVersion: the progress lines' ETA is a real duration
// while shards remain, and every output file's accounting carries the
// version `foldcorpus version` prints.
func TestCLIRunProgressAndVersion(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := runCLI(t, "run", "--out", out, "--num-docs", "120", "--workers", "1")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	line := regexp.MustCompile(`shards (\d+)/(\d+) .* ETA (\S+)`)
	checked := 0
	for _, m := range line.FindAllStringSubmatch(stderr, -1) {
		done, _ := strconv.Atoi(m[1])
		total, _ := strconv.Atoi(m[2])
		if done == 0 || done >= total {
			continue
		}
		eta, err := time.ParseDuration(m[3])
		if err != nil || eta <= 0 {
			t.Errorf("progress %q: ETA %q with %d of %d shards done; want a positive duration", m[0], m[3], done, total)
		}
		checked++
	}
	if checked == 0 {
		t.Fatalf("no progress line with shards left:\n%s", stderr)
	}

	stdout, _, code := runCLI(t, "version")
	v, ok := strings.CutPrefix(strings.SplitN(stdout, "\n", 2)[0], "foldcorpus ")
	if code != 0 || !ok || v == "" {
		t.Fatalf("version: exit %d, %q; want `foldcorpus VERSION`", code, stdout)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	if len(parts) == 0 {
		t.Fatal("run wrote no output files")
	}
	for _, p := range parts {
		meta, err := corpus.ReadMeta(ctx, localblob.Store{}, p)
		if err != nil {
			t.Fatal(err)
		}
		if meta.Accounting.Version != v {
			t.Errorf("%s: accounting version %q, `foldcorpus version` says %q", filepath.Base(p), meta.Accounting.Version, v)
		}
	}
}

// TestCLIFormats: `formats` lists every registered format with each of its
// options and default, as the registry describes them.
func TestCLIFormats(t *testing.T) {
	stdout, stderr, code := runCLI(t, "formats")
	if code != 0 {
		t.Fatalf("formats: exit %d\n%s", code, stderr)
	}
	sections := map[string]string{}
	for _, s := range strings.Split(stdout, "\n\n") {
		name, _, _ := strings.Cut(s, "\n")
		sections[name] = s
	}
	for _, name := range formatRegistry.Names() {
		info, _ := formatRegistry.Describe(name)
		s, ok := sections[name]
		if !ok {
			t.Errorf("formats does not list %s", name)
			continue
		}
		column := -1 // where the defaults start: one column for all of a format's options
		for _, o := range info.Options {
			want := o.Default
			if o.Required {
				want = "(required)"
			}
			loc := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(o.Key) + `\s+(` + regexp.QuoteMeta(want) + `)\s`).FindStringSubmatchIndex(s)
			if loc == nil {
				t.Errorf("formats, %s: no line for option %s with default %s", name, o.Key, want)
				continue
			}
			at := loc[2] - (strings.LastIndex(s[:loc[2]], "\n") + 1)
			if want == "" { // an empty default (contacts-v1's rotlib) has no column
				continue
			}
			if column < 0 {
				column = at
			} else if at != column {
				t.Errorf("formats, %s: option %s's default starts at column %d, the others at %d:\n%s", name, o.Key, at, column, s)
			}
		}
	}
	// A value anyone can check against the format's spec.
	if !regexp.MustCompile(`(?m)^\s+residue_plddt_min\s+70\s`).MatchString(sections["contacts-and-distances-v2"]) {
		t.Errorf("formats: contacts-and-distances-v2 does not show residue_plddt_min 70:\n%s", sections["contacts-and-distances-v2"])
	}
	if _, _, code := runCLI(t, "formats", "no-such-format"); code != 2 {
		t.Errorf("formats no-such-format: exit %d, want 2", code)
	}
}

// TestCLIRunIdentity: the same run asked for another way (a file:// URI for
// the path, a default option passed explicitly) resumes the run in --out; a
// different one is refused, saying what differs.
func TestCLIRunIdentity(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	glob, err := synth.WriteSample(ctx, localblob.Store{}, filepath.Join(dir, "sample"), 8, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, stderr, code := runCLI(t, "run", "--manifest", glob, "--out", out); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{
		{"--manifest", "file://" + glob, "--residue-plddt-min", "70"},
		{"--manifest", glob, "--opt", "residue_plddt_min=70.0", "--opt", "context_length=8192"},
	} {
		_, stderr, code := runCLI(t, append([]string{"run", "--out", out}, args...)...)
		if code != 0 || !strings.Contains(stderr, "(0 done now, 2 already done, 0 failed)") {
			t.Errorf("run %v over the same run: exit %d; want it to find both shards done\n%s", args, code, stderr)
		}
	}
	// The ledger as JSON, the flag after the folder.
	stdout, stderr, code := runCLI(t, "status", out, "--json")
	var st struct {
		Runs []struct {
			ID           string            `json:"id"`
			Complete     bool              `json:"complete"`
			Options      map[string]string `json:"options"`
			ShardRecords []json.RawMessage `json:"shard_records"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); code != 0 || err != nil || len(st.Runs) != 1 || !st.Runs[0].Complete ||
		len(st.Runs[0].ShardRecords) != 2 || st.Runs[0].Options["residue_plddt_min"] != "70" {
		t.Errorf("status DIR --json: exit %d, %v, %+v; want one complete run of 2 shards, residue_plddt_min 70\n%s", code, err, st, stderr)
	}
	_, stderr, code = runCLI(t, "run", "--out", out, "--manifest", glob, "--residue-plddt-min", "50")
	if want := `option residue_plddt_min: "70" (recorded) vs "50" (this command)`; code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("run with another option over the run: exit %d; want a refusal saying %s\n%s", code, want, stderr)
	}
}
