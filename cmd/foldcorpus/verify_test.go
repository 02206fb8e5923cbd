package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/synth"
	"github.com/foldcorpus/foldcorpus/internal/verify"
)

// verifyJSON is what `verify --json` prints, as a script reads it.
type verifyJSON struct {
	Whole   bool  `json:"whole"`
	Shards  int   `json:"shards"`
	Rows    int64 `json:"manifest_rows"`
	Missing []struct {
		Shard  int    `json:"shard"`
		Ledger string `json:"ledger"`
	} `json:"missing"`
	Extra []struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	} `json:"extra"`
	Rerun []string `json:"rerun"`
}

func verifyCLIJSON(t *testing.T, args ...string) (verifyJSON, int) {
	t.Helper()
	stdout, stderr, code := runCLI(t, append([]string{"verify", "--json"}, args...)...)
	var v verifyJSON
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("verify --json: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	return v, code
}

// TestVerifyCLI runs the sample, verifies it (text and --json, exit 0),
// deletes a shard file (exit 1, the shard named, the ledger's "done" called
// wrong, and a command that rebuilds it), runs that command and verifies
// the corpus whole again; then the same files without their record need
// --manifest.
func TestVerifyCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if _, stderr, code := runCLI(t, "run", "--out", out, "--num-docs", "24", "--row-groups-per-shard", "1", "--workers", "2"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "verify", out, "--deep")
	if code != 0 || !strings.HasSuffix(stdout, "\nWHOLE\n") || !strings.Contains(stdout, "24 in the manifest, 24 accounted for: 24 documents") ||
		!strings.Contains(stdout, "24 documents' sha1 recomputed") {
		t.Fatalf("verify of a good run: exit %d\n%s%s", code, stdout, stderr)
	}
	if v, code := verifyCLIJSON(t, out); code != 0 || !v.Whole || v.Shards != 4 || v.Rows != 24 || len(v.Missing)+len(v.Extra) != 0 {
		t.Fatalf("verify --json of a good run: exit %d, %+v", code, v)
	}

	if err := os.Remove(filepath.Join(out, "part-00001-of-00004.parquet")); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = runCLI(t, "verify", out)
	if code != 1 || !strings.Contains(stdout, "MISSING   shard 00001: no part-00001-of-00004.parquet (6 rows of ") ||
		!strings.Contains(stdout, "the ledger says done: it is wrong") || !strings.HasSuffix(stdout, "\nNOT WHOLE\n") {
		t.Fatalf("verify after deleting shard 1: exit %d, want 1 naming it:\n%s", code, stdout)
	}
	v, code := verifyCLIJSON(t, out)
	if code != 1 || v.Whole || len(v.Missing) != 1 || v.Missing[0].Shard != 1 || v.Missing[0].Ledger != "done" || len(v.Rerun) != 2 {
		t.Fatalf("verify --json after deleting shard 1: exit %d, %+v", code, v)
	}
	rebuild, ok := strings.CutPrefix(v.Rerun[1], "foldcorpus run ")
	if !ok {
		t.Fatalf("rerun line %q is not a foldcorpus run command", v.Rerun[1])
	}
	if msg, err := exec.Command("sh", "-c", buildCLI(t)+" run "+rebuild).CombinedOutput(); err != nil {
		t.Fatalf("the rebuild command %s: %v\n%s", v.Rerun[1], err, msg)
	}
	if stdout, _, code := runCLI(t, "verify", out, "--deep"); code != 0 {
		t.Fatalf("verify after the rebuild: exit %d\n%s", code, stdout)
	}
	if err := os.Remove(filepath.Join(dir, "out.rebuild-ledger.jsonl")); err != nil {
		t.Fatal(err)
	}

	// The files alone, without the run's record: --manifest is needed.
	bare := filepath.Join(dir, "bare")
	shards, _ := filepath.Glob(filepath.Join(out, "part-*.parquet"))
	for _, s := range shards {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := (localblob.Store{}).Create(context.Background(), filepath.Join(bare, filepath.Base(s)), data); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := runCLI(t, "verify", bare); code != 2 || !strings.Contains(stderr, "--manifest") {
		t.Fatalf("verify without a record or --manifest: exit %d, want 2 asking for --manifest:\n%s", code, stderr)
	}
	glob := filepath.Join(out, "_sample", "manifest")
	if stdout, _, code := runCLI(t, "verify", bare, "--manifest", glob, "--row-groups-per-shard", "1"); code != 0 {
		t.Fatalf("verify --manifest %s: exit %d\n%s", glob, code, stdout)
	}
}

// TestPublishRefusesUnverified: publish runs verify first and refuses a
// corpus with a temporary file left in it, with or without --partial,
// before anything is uploaded.
func TestPublishRefusesUnverified(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "out")
	if err := runRun(ctx, []string{"--out", out, "--num-docs", "8", "--workers", "2"}); err != nil {
		t.Fatal(err)
	}
	temp := localblob.TempPrefix + "part-00000-of-00004.parquet-00ff00ff00ff00ff"
	if err := os.WriteFile(filepath.Join(out, temp), []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := hubtest.New(hubtest.Options{Repo: pubRepo})
	defer srv.Close()
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "hf_write")
	for _, partial := range []bool{false, true} {
		args := []string{out, "hf://datasets/" + pubRepo, "--create"}
		if partial {
			args = append(args, "--partial")
		}
		err := runPublish(ctx, args)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 1 || !strings.Contains(err.Error(), "fails verify (0 shards missing, 1 extra objects") {
			t.Fatalf("publish (partial %v) of a corpus with %s: err = %v, want exit 1 refusing it", partial, temp, err)
		}
		if wc := srv.WriteCounts(); wc.Commits != 0 || wc.Preuploads != 0 {
			t.Fatalf("%d commits, %d preuploads after the refusal", wc.Commits, wc.Preuploads)
		}
	}
}

// TestVerifyRerunGcloud: for a cloud run (its record from Firestore), the
// missing shards get the planner's own messages as `gcloud pubsub topics
// publish` commands, one per shard, and a shard the ledger says done is
// named apart (a message for it is a no-op).
func TestVerifyRerunGcloud(t *testing.T) {
	ctx := context.Background()
	fake, client := emulators.RequireFakeGCS(t, "manifests")
	t.Setenv("STORAGE_EMULATOR_HOST", fake.URL)
	glob, err := synth.WriteSample(ctx, localblob.Store{}, t.TempDir(), 8, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(glob)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		upload(t, client, "manifests", "m/"+filepath.Base(f), data, false)
	}
	run := ledger.Run{ID: "gs://specs/x.run.json#7", Manifest: "gs://manifests/m/*.parquet", Format: registry.Default, Output: "gs://corpus/out", Shards: 2,
		Options: map[string]string{"pipeline.text_column": "cif_content", "pipeline.prefix": "part", "pipeline.row_groups_per_shard": "0", "pipeline.lenient_missing": "false"}}
	rep := &verify.Report{Missing: []verify.Missing{{Shard: 0, Ledger: "pending"}, {Shard: 1, Ledger: "done"}}}
	store := cliStores()
	defer store.Close()
	lines := rerunAdvice(ctx, store, run.Output, &run, rep, true, "foldcorpus-shards", "")
	if len(lines) != 3 || !strings.Contains(lines[0], "the ledger says shard 00001 done") {
		t.Fatalf("advice:\n%s", strings.Join(lines, "\n"))
	}
	for i, l := range lines[1:] {
		want := fmt.Sprintf("gs://corpus/out/part-%05d-of-00002.parquet", i)
		if !strings.HasPrefix(l, "gcloud pubsub topics publish 'foldcorpus-shards' --message '{") || !strings.Contains(l, want) || !strings.Contains(l, fmt.Sprintf("shard=%d", i)) {
			t.Errorf("shard %d: %s\nwant the gcloud command of its message (output %s)", i, l, want)
		}
	}
}
