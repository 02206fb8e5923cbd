package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/dedup"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// pdbCut makes the PDB run of the corpus's structures (select --pdb, then
// contacts-v1 chains and first assemblies under af3 curation with the 40%
// clusters) and its dedup cut, 20 rows a shard, cut from the run's folder
// by a relative path in dir; it returns the cut's folder.
func pdbCut(t *testing.T) string {
	t.Helper()
	c := testcorpus.Dir(t)
	bin := buildCLI(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"manifest", filepath.Join(c, "pdb", "*.cif*"), "--out", "m.parquet"},
		{"scan", "--manifest", "m.parquet", "--out", "e.parquet"},
		{"select", "--pdb", "--input", "e.parquet", "--out", "sel"},
		{"run", "--manifest", "sel/manifest", "--format", "contacts-v1", "--opt", "rotlib=" + filepath.Join(c, "golden", "confind-mini-rotlib"),
			"--opt", "units=chains,assembly1", "--opt", "curation=af3", "--opt", "max_chains=60",
			"--opt", "clusters=" + filepath.Join(c, "golden", "pdb-curation", "clusters-by-entity-40.txt"), "--out", "out"},
		{"dedup", "out", "--out", "dd", "--rows-per-shard", "20"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("foldcorpus %v: %v\n%s", args, err, msg)
		}
	}
	return filepath.Join(dir, "dd")
}

// cutStats reads a cut's dedup_stats.json.
func cutStats(t *testing.T, cut string) dedup.Stats {
	t.Helper()
	var st dedup.Stats
	b, err := os.ReadFile(filepath.Join(cut, dedup.StatsFile))
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestVerifyCutCLI verifies the PDB cut from another folder than the one it
// was cut in (its stats name the inputs absolute): whole, in text, --json
// and --deep; then with a shard deleted, and with its counts edited, exit 1
// naming what is wrong.
func TestVerifyCutCLI(t *testing.T) {
	cut := pdbCut(t)
	st := cutStats(t, cut)
	if len(st.Shards) < 2 || st.DroppedDuplicates == 0 || !filepath.IsAbs(st.Inputs[0]) {
		t.Fatalf("the PDB cut: %d shards, %d dropped, inputs %v; want several shards, duplicates dropped, absolute inputs", len(st.Shards), st.DroppedDuplicates, st.Inputs)
	}
	stdout, stderr, code := runCLI(t, "verify", cut, "--deep")
	if code != 0 || !strings.HasSuffix(stdout, "\nWHOLE\n") || !strings.Contains(stdout, "(a dedup cut)") ||
		!strings.Contains(stdout, "documents' sha1 recomputed") || !strings.Contains(stdout, "dropped "+itoa(st.DroppedDuplicates)+" as duplicates") {
		t.Fatalf("verify of the PDB cut: exit %d\n%s%s", code, stdout, stderr)
	}
	if v, code := verifyCLIJSON(t, cut); code != 0 || !v.Whole || v.Shards != len(st.Shards) || v.Rows != st.RowsIn {
		t.Fatalf("verify --json of the PDB cut: exit %d, %+v", code, v)
	}

	if err := os.Remove(filepath.Join(cut, st.Shards[1])); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = runCLI(t, "verify", cut)
	if code != 1 || !strings.Contains(stdout, "MISSING   shard 00001: no "+st.Shards[1]) || !strings.HasSuffix(stdout, "\nNOT WHOLE\n") {
		t.Fatalf("verify of the cut without %s: exit %d, want 1 naming it\n%s", st.Shards[1], code, stdout)
	}
	if v, code := verifyCLIJSON(t, cut); code != 1 || v.Whole || len(v.Missing) != 1 || v.Missing[0].Shard != 1 {
		t.Fatalf("verify --json of the cut without shard 1: exit %d, %+v", code, v)
	}

	cut2 := pdbCut(t)
	p := filepath.Join(cut2, dedup.StatsFile)
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte(`"docs_out": `+itoa(st.DocsOut)), []byte(`"docs_out": `+itoa(st.DocsOut-1)), 1)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = runCLI(t, "verify", cut2)
	if code != 1 || !strings.Contains(stdout, "DISAGREES dedup_stats.json (stats): says docs_out "+itoa(st.DocsOut-1)+"; dedup_rows.parquet has "+itoa(st.DocsOut)+" rows") {
		t.Fatalf("verify of the cut with docs_out edited: exit %d, want 1 naming it\n%s", code, stdout)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestPublishCut publishes the PDB cut: its shards byte for byte under
// data/, its dedup_stats.json under report/, not dedup_rows.parquet (nor
// counted on the card); a cut
// with a shard copied under a second name is refused before any upload.
func TestPublishCut(t *testing.T) {
	cut := pdbCut(t)
	st := cutStats(t, cut)
	srv := hubtest.New(hubtest.Options{Repo: pubRepo, Write: hubtest.WriteOptions{Absent: true}})
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "hf_write")
	ctx := context.Background()
	if err := runPublish(ctx, []string{cut, "hf://datasets/" + pubRepo + "/pdb", "--create", "--license", "cc0-1.0"}); err != nil {
		t.Fatal(err)
	}
	repo := map[string][]byte{}
	for _, f := range srv.Files("") {
		repo[f.Path] = f.Data
	}
	data := 0
	for p := range repo {
		if strings.HasPrefix(p, "pdb/data/") {
			data++
		}
	}
	for _, sh := range st.Shards {
		b, err := os.ReadFile(filepath.Join(cut, sh))
		if err != nil {
			t.Fatal(err)
		}
		if hubtest.SHA256(repo["pdb/data/"+sh]) != hubtest.SHA256(b) {
			t.Errorf("pdb/data/%s differs from the cut's", sh)
		}
	}
	stats, _ := os.ReadFile(filepath.Join(cut, dedup.StatsFile))
	if data != len(st.Shards) || !bytes.Equal(repo["pdb/report/"+dedup.StatsFile], stats) || repo["README.md"] == nil ||
		!bytes.Contains(repo["README.md"], []byte("path: pdb/data/*.parquet")) ||
		!bytes.Contains(repo["README.md"], []byte(fmt.Sprintf(": %d documents in %d parquet files", st.DocsOut, len(st.Shards)))) {
		t.Errorf("published %d data files (want the %d shards), report/%s %v, card:\n%s", data, len(st.Shards), dedup.StatsFile,
			repo["pdb/report/"+dedup.StatsFile] != nil, repo["README.md"])
	}

	cut2 := pdbCut(t)
	b, _ := os.ReadFile(filepath.Join(cut2, st.Shards[0]))
	if err := os.WriteFile(filepath.Join(cut2, "deduped-copy.parquet"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	srv2 := hubtest.New(hubtest.Options{Repo: pubRepo})
	defer srv2.Close()
	t.Setenv("HF_ENDPOINT", srv2.URL())
	err := runPublish(ctx, []string{cut2, "hf://datasets/" + pubRepo})
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "fails verify (0 shards missing, 1 extra objects") {
		t.Fatalf("publish of a cut with a shard under a second name: err = %v, want exit 1 refusing it", err)
	}
	if wc := srv2.WriteCounts(); wc.Commits != 0 || wc.Preuploads != 0 {
		t.Fatalf("%d commits, %d preuploads after the refusal", wc.Commits, wc.Preuploads)
	}
}
