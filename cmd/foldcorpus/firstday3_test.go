package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// TestCLIPublishLicenseHelp: publish -h says what the sources' licenses
// are: AFDB CC-BY-4.0, PDB entries CC0.
func TestCLIPublishLicenseHelp(t *testing.T) {
	stdout, stderr, code := runCLI(t, "publish", "-h")
	help := stdout + stderr
	if code != 0 {
		t.Fatalf("publish -h: exit %d", code)
	}
	if strings.Contains(help, "PDB data are CC-BY") || !strings.Contains(help, "PDB entries are CC0") || !strings.Contains(help, "cc0-1.0") {
		t.Errorf("publish -h does not say that PDB entries are CC0 (cc0-1.0):\n%s", help)
	}
}

// TestCLIRunRecordFormatOnStructures: contacts-v1 without rotlib over a
// structure manifest says what it reads and how to compute it from the
// structures, beside the missing column.
func TestCLIRunRecordFormatOnStructures(t *testing.T) {
	dir := t.TempDir()
	mdir := sampleManifest(t, dir, 2, 1)
	_, stderr, code := runCLI(t, "run", "--manifest", filepath.Join(mdir, "*.parquet"), "--format", "contacts-v1", "--out", filepath.Join(dir, "out"))
	for _, want := range []string{`missing required column`, "contacts-v1 without rotlib reads analysis records", "--opt rotlib=DIR"} {
		if code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("run --format contacts-v1 over structures: exit %d, want non-zero saying %q:\n%s", code, want, stderr)
		}
	}
	noGoChain(t, "contacts-v1 over structures", stderr)
}

// TestCLIHelpValueNamesAndColumns: flag value names are a Go type or a placeholder in
// capitals (the flag package takes a back-quoted word of the usage as the
// value name: `-entry-id run`); inspect -h says what it prints; formats says
// that structure formats read PDB format too; run -h lists the manifest's
// required columns.
func TestCLIHelpValueNamesAndColumns(t *testing.T) {
	help := func(args ...string) string {
		stdout, stderr, code := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		return stdout + stderr
	}
	valueName := regexp.MustCompile(`(?m)^  -([a-z0-9-]+) (.+)$`)
	typeOrPlaceholder := regexp.MustCompile(`^(string|int|int64|uint|uint64|float|duration|value|[A-Z][A-Z0-9_=.,]*)$`)
	for _, cmd := range []string{"doc", "inspect", "run", "status", "formats", "publish", "fetch-manifest"} {
		if _, ok := commands[cmd]; !ok {
			continue
		}
		for _, m := range valueName.FindAllStringSubmatch(help(cmd, "-h"), -1) {
			if !typeOrPlaceholder.MatchString(m[2]) {
				t.Errorf("%s -h: flag -%s shows the value name %q (a back-quoted word of its usage?)", cmd, m[1], m[2])
			}
		}
	}
	ih := help("inspect", "-h")
	for _, want := range []string{"entry_id", "chains", "sequence", "pLDDT", "contacts", "--json"} {
		if !strings.Contains(ih, want) {
			t.Errorf("inspect -h does not say that it prints %s:\n%s", want, ih)
		}
	}
	fh := help("formats")
	if strings.Contains(fh, "input: mmCIF structures") || !strings.Contains(fh, "mmCIF or PDB format") {
		t.Errorf("formats says structure formats read mmCIF only:\n%s", fh)
	}
	rh := help("run", "-h")
	for _, want := range []string{"entry_id", "gcs_uri", "cif_content", "required columns"} {
		if !strings.Contains(rh, want) {
			t.Errorf("run -h does not name the manifest's required column %s:\n%s", want, rh)
		}
	}
}

// TestCLIEntryIDRuleInHelp: doc -h and inspect -h say how the default
// entry id is derived for each format (the reference generator's rule:
// gemmi's structure name), and how to choose another.
func TestCLIEntryIDRuleInHelp(t *testing.T) {
	for _, cmd := range []string{"doc", "inspect"} {
		stdout, stderr, _ := runCLI(t, cmd, "-h")
		help := strings.Join(strings.Fields(stdout+stderr), " ")
		for _, want := range []string{"data_ block name", "a PDB-format file's name without .gz and .pdb", "gemmi"} {
			if !strings.Contains(help, want) {
				t.Errorf("%s -h does not say %q:\n%s", cmd, want, stdout+stderr)
			}
		}
	}
	stdout, _, _ := runCLI(t, "doc", "-h")
	if help := strings.Join(strings.Fields(stdout), " "); !strings.Contains(help, "give --entry-id") {
		t.Errorf("doc -h does not say how to name a PDB copy as its mmCIF entry:\n%s", stdout)
	}
}

// TestCLIRunStdoutAndSkipped: run writes its results (output:, report:) to
// stdout and its progress to stderr; after --lenient-missing its last line
// counts the skipped rows, and status names their entries.
func TestCLIRunStdoutAndSkipped(t *testing.T) {
	dir := t.TempDir()
	mdir := sampleManifest(t, dir, 4, 1)
	var id, uri string
	err := manifest.ReadFile(context.Background(), localblob.Store{}, filepath.Join(mdir, "sample-00000.parquet"), nil, []string{"entry_id", "gcs_uri"}, func(r *manifest.Rows) error {
		id, uri = r.Values[1][0].(string), r.Values[1][1].(string)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := localblob.Path(uri)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := runCLI(t, "run", "--manifest", mdir, "--out", out, "--lenient-missing")
	if code != 0 {
		t.Fatalf("run --lenient-missing: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"output: " + out, "report: "} {
		if !strings.Contains(stdout, want) || strings.Contains(stderr, want) {
			t.Errorf("run: %q not on stdout alone:\nstdout:\n%s\nstderr:\n%s", want, stdout, stderr)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "1 row skipped") || !strings.Contains(last, id) {
		t.Errorf("run's last line %q does not count the skipped row and name entry %s", last, id)
	}
	status, _, code := runCLI(t, "status", out)
	if code != 0 || !strings.Contains(status, "1 skipped") || !strings.Contains(status, id) {
		t.Errorf("status: exit %d, does not name the skipped entry %s:\n%s", code, id, status)
	}
}

// TestCLIReadErrorsSayWhat: doc's and inspect's errors name the file once,
// without classification prefixes; an empty file is said to be empty;
// status on a folder that holds no run names the folder.
func TestCLIReadErrorsSayWhat(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.cif")
	junk := filepath.Join(dir, "junk.cif")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(junk, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, want string }{{empty, "empty file"}, {junk, "no data_ block"}} {
		for _, args := range [][]string{{"doc", tc.file}, {"inspect", "--json", tc.file}} {
			stdout, _, code := runCLI(t, args...)
			var line struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal([]byte(stdout), &line); err != nil || code != 1 {
				t.Fatalf("%v: exit %d, %v:\n%s", args, code, err, stdout)
			}
			if !strings.Contains(line.Error, tc.want) || strings.Count(line.Error, tc.file) != 1 || strings.Contains(line.Error, "permanent failure") {
				t.Errorf("%v: error %q, want it to say %q and name the file once, without \"permanent failure\"", args, line.Error, tc.want)
			}
		}
	}
	_, stderr, code := runCLI(t, "status", dir)
	if code == 0 || !strings.Contains(stderr, dir) {
		t.Errorf("status on a folder without a run: exit %d, want non-zero naming %s:\n%s", code, dir, stderr)
	}
}
