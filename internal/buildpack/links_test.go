package buildpack

import (
	"context"
	"slices"
	"testing"
)

// TestFunctionLinksOnlyWhatItCalls: the deployed function binary (the
// generated main's packages, listed with infra/functions.tf's build
// environment: its GOFLAGS tags and CGO_ENABLED) carries none of Unwanted:
// no accelerator runtime, checkpoint reader, plotting, DuckDB, xDS or
// goccy/go-json. `go list -deps` only: no build.
func TestFunctionLinksOnlyWhatItCalls(t *testing.T) {
	repo := repoRoot()
	env, err := BuildEnv(repo)
	if err != nil {
		t.Fatal(err)
	}
	deps, err := Deps(context.Background(), repo, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"github.com/foldcorpus/foldcorpus/functions", "github.com/foldcorpus/foldcorpus/shardfn", Framework} {
		if !slices.Contains(deps, want) {
			t.Fatalf("go list -deps of the function binary lacks %s: the listing is not of the binary (%d packages)", want, len(deps))
		}
	}
	if bad := UnwantedIn(deps); len(bad) > 0 {
		t.Errorf("the function binary (built with %s) links packages it never calls:\n%v\n(find who imports them: go list -deps -f '{{.ImportPath}}: {{.Imports}}' . | grep PACKAGE)", env, bad)
	}
}
