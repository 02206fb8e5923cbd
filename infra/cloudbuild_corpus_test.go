package infra

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloudBuildWithoutTheCorpus runs cloudbuild.yaml's corpus and test
// steps (their bash, with Cloud Build's $$ escapes undone) against stub
// gcloud and go commands: a project without a corpus copy (an outside
// user's) must pass both, running the tests without
// FOLDCORPUS_REQUIRE_CORPUS=1; a project with one runs .ci/run's command.
func TestCloudBuildWithoutTheCorpus(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skipf("SKIP: no bash: %v", err)
	}
	cb := loadCloudBuild(t)
	script := func(id string) string {
		for _, s := range cb.Steps {
			if s.ID == id {
				if len(s.Args) != 2 || s.Args[0] != "-c" {
					t.Fatalf("step %s: args %q, want [-c SCRIPT]", id, s.Args)
				}
				r := strings.NewReplacer("$${", "${", "${PROJECT_ID}", "p", "${_NAME_PREFIX}", "foldcorpus", "/workspace/", os.Getenv("CB_WORKSPACE"))
				return r.Replace(s.Args[1])
			}
		}
		t.Fatalf("cloudbuild.yaml has no step %s", id)
		return ""
	}
	for _, haveCorpus := range []bool{false, true} {
		ws := t.TempDir()
		bin := filepath.Join(ws, "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		gcloudExit := "1" // `gcloud storage ls` of a missing object fails
		if haveCorpus {
			gcloudExit = "0"
		}
		stubs := map[string]string{
			"gcloud": "#!/bin/sh\necho \"gcloud $*\" >> " + filepath.Join(ws, "calls") + "\n[ \"$2\" = cp ] && mkdir -p \"$CB_WORKSPACE/.corpus/golden\"\nexit " + gcloudExit + "\n",
			"go":     "#!/bin/sh\necho \"go $* REQUIRE=$FOLDCORPUS_REQUIRE_CORPUS\" >> " + filepath.Join(ws, "calls") + "\n",
		}
		for name, text := range stubs {
			if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv("CB_WORKSPACE", ws+"/")
		run := func(id string) string {
			cmd := exec.Command(bash, "-c", script(id))
			var env []string // Cloud Build's: this test's own FOLDCORPUS_* left out
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "FOLDCORPUS_") && !strings.HasPrefix(kv, "PATH=") {
					env = append(env, kv)
				}
			}
			cmd.Env = append(env, "PATH="+bin+":/usr/bin:/bin", "FOLDCORPUS_CORPUS="+filepath.Join(ws, ".corpus"))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("corpus copy %v: step %s failed: %v\n%s", haveCorpus, id, err, out)
			}
			return string(out)
		}
		corpusOut := run("corpus")
		run("test")
		calls, _ := os.ReadFile(filepath.Join(ws, "calls"))
		want := "go test ./... REQUIRE=\n"
		if haveCorpus {
			want = "go test ./... REQUIRE=1\n"
		}
		if !strings.HasSuffix(string(calls), want) {
			t.Errorf("corpus copy %v: calls\n%s\nwant the tests run as %q", haveCorpus, calls, want)
		}
		if !haveCorpus && !strings.Contains(corpusOut, "no test corpus") {
			t.Errorf("the corpus step does not say the corpus is missing:\n%s", corpusOut)
		}
	}
}
