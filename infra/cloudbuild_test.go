package infra

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type cloudBuild struct {
	Substitutions map[string]string `yaml:"substitutions"`
	Steps         []struct {
		ID         string   `yaml:"id"`
		Name       string   `yaml:"name"`
		Entrypoint string   `yaml:"entrypoint"`
		Args       []string `yaml:"args"`
		Env        []string `yaml:"env"`
		Script     string   `yaml:"script"`
	} `yaml:"steps"`
}

func loadCloudBuild(t *testing.T) cloudBuild {
	t.Helper()
	var cb cloudBuild
	if err := yaml.Unmarshal([]byte(readFile(t, "../cloudbuild.yaml")), &cb); err != nil {
		t.Fatalf("cloudbuild.yaml: %v", err)
	}
	if len(cb.Steps) == 0 {
		t.Fatal("cloudbuild.yaml has no steps")
	}
	return cb
}

var space = regexp.MustCompile(`\s+`)

func norm(s string) string { return strings.TrimSpace(space.ReplaceAllString(s, " ")) }

// ciCommands returns the go vet / go test command lines of .ci/run
// (continuation lines joined, comments dropped).
func ciCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatalf(".ci/run (the CI entry point cloudbuild.yaml must mirror): %v", err)
	}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = norm(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		if strings.Contains(line, "go test") || strings.Contains(line, "go vet") || strings.HasPrefix(line, "npm ") {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatal(".ci/run runs no go test or go vet")
	}
	return out
}

func TestCloudBuildRunsTheCICommands(t *testing.T) {
	cb := loadCloudBuild(t)
	var steps []string // normalized command text of each step
	var ids []string
	for _, s := range cb.Steps {
		ids = append(ids, s.ID)
		steps = append(steps, norm(s.Script+" "+strings.Join(s.Args, " ")))
	}
	for _, cmd := range ciCommands(t) {
		found := slices.ContainsFunc(steps, func(s string) bool { return strings.Contains(s, cmd) })
		if !found {
			t.Errorf(".ci/run runs %q; no cloudbuild.yaml step does", cmd)
		}
	}
	// Order: checks first, deployment last.
	pos := func(id string) int {
		i := slices.Index(ids, id)
		if i < 0 {
			t.Fatalf("cloudbuild.yaml has no step %q (steps: %v)", id, ids)
		}
		return i
	}
	if !(pos("vet") < pos("test") && pos("test") < pos("tpujob-push") && pos("tpujob-push") < pos("deploy")) {
		t.Errorf("steps out of order: %v (want vet, test, then the image, then deploy)", ids)
	}
	// The emulator tests are a package of ./...; the test step must cover it
	// with the CI environment that turns a missing emulator into a failure.
	if _, err := os.Stat("../emulator-tests"); err != nil {
		t.Fatalf("no emulator-tests folder: %v", err)
	}
	test := cb.Steps[pos("test")]
	if !strings.Contains(steps[pos("test")], "go test ./...") && !strings.Contains(steps[pos("test")], "./emulator-tests") {
		t.Errorf("the test step does not run emulator-tests: %s", steps[pos("test")])
	}
	if !slices.Contains(test.Env, "CI=true") {
		t.Errorf("the test step lacks CI=true (emulators and DuckDB would be skipped when missing): %v", test.Env)
	}
	if !strings.Contains(steps[pos("vet")], "go vet ./...") {
		t.Errorf("vet step runs %q", steps[pos("vet")])
	}
	deploy := steps[pos("deploy")]
	// The variables come from the guide's file (TestDeployGuideVariablesFile).
	if !strings.Contains(deploy, "terraform -chdir=infra apply") {
		t.Errorf("deploy step does not apply infra/: %s", deploy)
	}
	if !(pos("tfvars") < pos("deploy")) {
		t.Errorf("the variables file is fetched after the deploy step: %v", ids)
	}
	// The image deployed is the image pushed.
	push := cb.Steps[pos("tpujob-push")].Args
	if img := push[len(push)-1]; !strings.Contains(deploy, "-var=tpujob_image="+img) {
		t.Errorf("deploy step does not deploy the pushed image %s", img)
	}
	if cb.Substitutions["_REGION"] == "" {
		t.Error("no _REGION substitution")
	}
}
