package buildpack

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

func TestFilesetMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"{functions,internal}/**/*.{go,s}", "functions/a.go", true},
		{"{functions,internal}/**/*.{go,s}", "internal/x/y/z.s", true},
		{"{functions,internal}/**/*.{go,s}", "internal/x/y/z.c", false},
		{"{functions,internal}/**/*.{go,s}", "cmd/a.go", false},
		{"internal/*.go", "internal/x/a.go", false},
		{"internal/*.go", "internal/a.go", true},
		{"go.mod", "go.mod", true},
		{"{a,b", "a", false},
	} {
		if got := FilesetMatch(tc.pattern, tc.name); got != tc.want {
			t.Errorf("FilesetMatch(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestEnvArgs(t *testing.T) {
	for _, tc := range []struct {
		env                 Env
		args, environ, tags []string
	}{
		{Env{"CGO_ENABLED": "1"}, nil, []string{"CGO_ENABLED=1"}, nil},
		{Env{GoLDFlags: "-s -w", GoGCFlags: "all=-N -l", "GOFLAGS": "-tags=a,b", "CGO_ENABLED": "1"},
			[]string{"-gcflags", "all=-N -l", "-ldflags", "-s -w"}, []string{"CGO_ENABLED=1", "GOFLAGS=-tags=a,b"}, []string{"a", "b"}},
		{Env{"GOFLAGS": "-trimpath --tags x"}, nil, []string{"GOFLAGS=-trimpath --tags x"}, []string{"x"}},
	} {
		if got := tc.env.BuildArgs(); !slices.Equal(got, tc.args) {
			t.Errorf("%v.BuildArgs() = %q, want %q", tc.env, got, tc.args)
		}
		if got := tc.env.Environ(); !slices.Equal(got, tc.environ) {
			t.Errorf("%v.Environ() = %q, want %q", tc.env, got, tc.environ)
		}
		if got := tc.env.Tags(); !slices.Equal(got, tc.tags) {
			t.Errorf("%v.Tags() = %q, want %q", tc.env, got, tc.tags)
		}
	}
}

// fn is a function resource with build environment env (HCL).
func fn(name, env string) string {
	return `resource "google_cloudfunctions2_function" "` + name + `" {
  build_config {
    entry_point = "X"
    environment_variables = ` + env + `
  }
}
`
}

func TestBuildEnv(t *testing.T) {
	for _, tc := range []struct {
		name, tf string
		want     Env
		wantErr  string
	}{
		{"literal", fn("a", `{ CGO_ENABLED = "1", GOOGLE_GOLDFLAGS = "-s -w" }`) + fn("b", `{ GOOGLE_GOLDFLAGS = "-s -w", CGO_ENABLED = "1" }`),
			Env{"CGO_ENABLED": "1", GoLDFlags: "-s -w"}, ""},
		{"local", "locals {\n  build_env = { GOFLAGS = \"-tags=x\" }\n  other = var.x\n}\n" + fn("a", "local.build_env") + fn("b", "local.build_env"),
			Env{"GOFLAGS": "-tags=x"}, ""},
		{"disagree", fn("a", `{ CGO_ENABLED = "1" }`) + fn("b", `{ CGO_ENABLED = "0" }`), nil, "different build_config.environment_variables"},
		{"not literal", fn("a", `{ CGO_ENABLED = var.cgo }`), nil, "must be literal"},
		{"no functions", "locals {\n  a = 1\n}\n", nil, "no google_cloudfunctions2_function"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			if err := os.MkdirAll(filepath.Join(repo, "infra"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, "infra", "functions.tf"), []byte(tc.tf), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := BuildEnv(repo)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("BuildEnv = %v, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got.String() != tc.want.String() {
				t.Fatalf("BuildEnv = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestSourceFiles: the archive list of this repository holds the module
// files, the root package and sources of the function packages, no tests.
func TestSourceFiles(t *testing.T) {
	files, err := SourceFiles(repoRoot())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go.mod", "go.sum", "deploy.go", "functions/functions.go", "shardfn/shardfn.go"} {
		if !slices.Contains(files, want) {
			t.Errorf("SourceFiles lacks %s", want)
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || strings.Contains(f, "testdata/") || strings.HasPrefix(f, "cmd/") {
			t.Errorf("SourceFiles holds %s", f)
		}
	}
}

// TestDeployedBuildEnv: the functions are built stripped, with cgo.
func TestDeployedBuildEnv(t *testing.T) {
	env, err := BuildEnv(repoRoot())
	if err != nil {
		t.Fatal(err)
	}
	ld := strings.Fields(env[GoLDFlags])
	if !slices.Contains(ld, "-s") || !slices.Contains(ld, "-w") || env["CGO_ENABLED"] != "1" {
		t.Errorf("infra/functions.tf builds the functions with %s: want CGO_ENABLED=1 and GOOGLE_GOLDFLAGS with -s -w", env)
	}
}
