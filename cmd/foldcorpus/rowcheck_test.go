package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// goldenV2 reads the reference's contacts-and-distances-v2 line of each
// named corpus file: its residue count and its document's sha1.
func goldenV2(t *testing.T, dir string, files ...string) map[string]struct {
	NResidues int64  `json:"n_residues"`
	SHA1      string `json:"sha1"`
} {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "golden", "contacts-and-distances-v2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]struct {
		NResidues int64  `json:"n_residues"`
		SHA1      string `json:"sha1"`
	}{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var g struct {
			File      string `json:"file"`
			NResidues int64  `json:"n_residues"`
			SHA1      string `json:"sha1"`
		}
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if g.File == name {
				out[name] = struct {
					NResidues int64  `json:"n_residues"`
					SHA1      string `json:"sha1"`
				}{g.NResidues, g.SHA1}
			}
		}
	}
	if len(out) != len(files) {
		t.Fatalf("golden lines for %d of %v", len(out), files)
	}
	return out
}

// cutInAtomSite writes the first lines of the mmCIF file src up to the
// middle of its _atom_site records (a file cut at a line boundary, as an
// interrupted copy leaves it) to dst.
func cutInAtomSite(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	var atoms []int
	for i, l := range lines {
		if strings.HasPrefix(l, "ATOM ") || strings.HasPrefix(l, "HETATM ") {
			atoms = append(atoms, i)
		}
	}
	if len(atoms) < 100 {
		t.Fatalf("%s: %d _atom_site records", src, len(atoms))
	}
	cut := atoms[len(atoms)/2]
	if err := os.WriteFile(dst, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeSeqLenManifest writes a manifest (entry_id, gcs_uri, seq_len) with
// one row per entry: id, path, seq_len.
func writeSeqLenManifest(t *testing.T, path string, rows [][]any) {
	t.Helper()
	for _, r := range rows {
		r[1] = "file://" + r[1].(string)
	}
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}, {Name: "seq_len", Type: format.Int64}}
	data, err := manifest.Encode(cols, rows, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := (localblob.Store{}).Create(context.Background(), path, data); err != nil {
		t.Fatal(err)
	}
}

// outputSHA1s reads the sha1 column of every shard file of out, by entry.
func outputSHA1s(t *testing.T, out string) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	got := map[string]string{}
	for _, f := range files {
		err := corpus.Read(context.Background(), localblob.Store{}, f, []string{"entry_id", "sha1"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				got[v[0].(string)] = v[1].(string)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return got
}

// TestCLIRunSuspectSeqLen: an AFDB file cut at a line boundary inside
// _atom_site parses as a shorter protein without error. With the
// manifest's seq_len, `foldcorpus run` names and counts it as suspect (its
// last line), and so do status, verify (a warning; the corpus is still
// WHOLE) and the report page; every document is the one the reference
// writes for the whole files, and the cut file's document is written.
func TestCLIRunSuspectSeqLen(t *testing.T) {
	dir := testcorpus.Dir(t)
	const a, b = "afdb/AF-A0A023HJ61-F1-model_v4.cif", "afdb/AF-P04637-F1-model_v4.cif"
	gold := goldenV2(t, dir, a, b)
	tmp := t.TempDir()
	cut := filepath.Join(tmp, "cif", "cut.cif")
	if err := os.MkdirAll(filepath.Dir(cut), 0o755); err != nil {
		t.Fatal(err)
	}
	cutInAtomSite(t, filepath.Join(dir, a), cut)
	writeSeqLenManifest(t, filepath.Join(tmp, "m", "m.parquet"), [][]any{
		{"AF-A0A023HJ61-F1", filepath.Join(dir, a), gold[a].NResidues},
		{"CUT-A0A023HJ61", cut, gold[a].NResidues},
		{"AF-P04637-F1", filepath.Join(dir, b), gold[b].NResidues},
	})
	out := filepath.Join(tmp, "out")
	stdout, stderr, code := runCLI(t, "run", "--manifest", filepath.Join(tmp, "m"), "--out", out, "--workers", "1")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	wantSeqLen := fmt.Sprintf("seq_len %d in the manifest, ", gold[a].NResidues)
	if last := lines[len(lines)-1]; !strings.Contains(last, "1 row suspect") || !strings.Contains(last, "CUT-A0A023HJ61 (row 1: "+wantSeqLen) {
		t.Errorf("run's last line %q does not name the suspect row CUT-A0A023HJ61 with %q", last, wantSeqLen)
	}
	got := outputSHA1s(t, out)
	if got["AF-A0A023HJ61-F1"] != gold[a].SHA1 || got["AF-P04637-F1"] != gold[b].SHA1 || got["CUT-A0A023HJ61"] == "" || len(got) != 3 {
		t.Errorf("documents' sha1 %v: want the reference's %s and %s, and the cut file's document", got, gold[a].SHA1, gold[b].SHA1)
	}
	status, _, code := runCLI(t, "status", out)
	if code != 0 || !strings.Contains(status, "  suspect  1 row suspect") || !strings.Contains(status, "CUT-A0A023HJ61") {
		t.Errorf("status: exit %d, does not name the suspect row:\n%s", code, status)
	}
	verify, verr, code := runCLI(t, "verify", out)
	if code != 0 || !strings.Contains(verify, "WARNING   1 rows whose structure's length differs from the manifest's seq_len") ||
		!strings.Contains(verify, "CUT-A0A023HJ61") || !strings.HasSuffix(strings.TrimSpace(verify), "WHOLE") || strings.Contains(verify, "NOT WHOLE") {
		t.Errorf("verify: exit %d, want WHOLE with a warning naming CUT-A0A023HJ61:\n%s%s", code, verify, verr)
	}
	page, err := os.ReadFile(filepath.Join(out, "report", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "suspect, written: structure length differs from the manifest's seq_len (truncated objects?)</td><td>1</td>") {
		i := strings.Index(string(page), "skipped (lenient")
		t.Errorf("the report page does not count the suspect row:\n%s", page[max(i, 0):min(len(page), max(i, 0)+400)])
	}
}

// TestCLIRunLenientParse: one object that fails to parse fails its shard
// (exit 1, status says --lenient-parse is a way out); with --lenient-parse
// the run completes, its last line names the row with its error, status
// and verify count it (WHOLE), and the documents of the other rows are the
// reference's. --lenient-parse is part of the run's identity: the same
// command without it into that folder is refused, naming the option.
func TestCLIRunLenientParse(t *testing.T) {
	dir := testcorpus.Dir(t)
	const a, b = "afdb/AF-A0A023HJ61-F1-model_v4.cif", "afdb/AF-P04637-F1-model_v4.cif"
	gold := goldenV2(t, dir, a, b)
	tmp := t.TempDir()
	junk := filepath.Join(tmp, "cif", "junk.cif")
	if err := os.MkdirAll(filepath.Dir(junk), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(junk, []byte("this is not an mmCIF file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSeqLenManifest(t, filepath.Join(tmp, "m", "m.parquet"), [][]any{
		{"AF-A0A023HJ61-F1", filepath.Join(dir, a), gold[a].NResidues},
		{"JUNK", junk, int64(100)},
		{"AF-P04637-F1", filepath.Join(dir, b), gold[b].NResidues},
	})
	m := filepath.Join(tmp, "m")

	strict := filepath.Join(tmp, "strict")
	if _, stderr, code := runCLI(t, "run", "--manifest", m, "--out", strict, "--workers", "1"); code == 0 || !strings.Contains(stderr, "JUNK") {
		t.Fatalf("run without --lenient-parse: exit %d, want a failed shard naming JUNK:\n%s", code, stderr)
	}
	if status, _, _ := runCLI(t, "status", strict); !strings.Contains(status, "--lenient-parse if they fail to parse") {
		t.Errorf("status of the failed run does not offer --lenient-parse:\n%s", status)
	}

	out := filepath.Join(tmp, "out")
	stdout, stderr, code := runCLI(t, "run", "--manifest", m, "--out", out, "--workers", "1", "--lenient-parse")
	if code != 0 {
		t.Fatalf("run --lenient-parse: exit %d\n%s\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "1 row skipped as objects that failed to parse (--lenient-parse): JUNK (row 1: ") {
		t.Errorf("run's last line %q does not name JUNK with its error", last)
	}
	got := outputSHA1s(t, out)
	if got["AF-A0A023HJ61-F1"] != gold[a].SHA1 || got["AF-P04637-F1"] != gold[b].SHA1 || len(got) != 2 {
		t.Errorf("documents' sha1 %v: want the reference's %s and %s only", got, gold[a].SHA1, gold[b].SHA1)
	}
	status, _, code := runCLI(t, "status", out)
	if code != 0 || !strings.Contains(status, "3 in, 2 docs out, 1 skipped (0 missing objects, 1 that failed to parse)") ||
		!strings.Contains(status, "  skipped  1 row skipped as objects that failed to parse (--lenient-parse): JUNK (row 1: ") {
		t.Errorf("status: exit %d, does not count and name JUNK:\n%s", code, status)
	}
	verify, verr, code := runCLI(t, "verify", out)
	if code != 0 || !strings.Contains(verify, "1 of them because their object failed to parse") || !strings.HasSuffix(strings.TrimSpace(verify), "WHOLE") ||
		strings.Contains(verify, "NOT WHOLE") || strings.Contains(verify, "WARNING") {
		t.Errorf("verify: exit %d, want WHOLE counting the unparseable row:\n%s%s", code, verify, verr)
	}
	_, stderr, code = runCLI(t, "run", "--manifest", m, "--out", out, "--workers", "1")
	if code == 0 || !strings.Contains(stderr, `option pipeline.lenient_parse: "true" (recorded) vs unset (this command)`) {
		t.Errorf("run without --lenient-parse into the lenient run's folder: exit %d, want refused naming the option:\n%s", code, stderr)
	}
}
