package buildpack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Unwanted are the import path prefixes of what a function binary never
// calls: the accelerator runtime (GoMLX) and the checkpoint reader
// (gopickle), which only the tokenize job and the CLI run; numerics and
// plotting (gonum, freetype, gg); DuckDB; gRPC's xDS and Envoy's control
// plane (DirectPath, dropped by the disable_grpc_modules tag of
// cloud.google.com/go/storage); goccy/go-json (arrow-go's JSON helpers,
// encoding/json under its arrow_json_stdlib tag).
var Unwanted = []string{
	"github.com/gomlx/",
	"github.com/nlpodyssey/gopickle",
	"gonum.org/",
	"github.com/duckdb/",
	"github.com/marcboeker/go-duckdb",
	"github.com/golang/freetype",
	"git.sr.ht/~sbinet/gg",
	"github.com/envoyproxy/go-control-plane",
	"github.com/cncf/xds",
	"google.golang.org/grpc/xds",
	"github.com/goccy/go-json",
}

// Deps lists the packages the generated main links, as `go list -deps` of
// the module root's package and the framework's server package in repo
// with env (its GOFLAGS tags and CGO_ENABLED): what Build would compile,
// without building. The repository's go.mod and go.sum stay untouched: the
// go command resolves the framework's requirements (which the buildpack's
// `go mod tidy` adds) in copies of them in a temporary folder.
func Deps(ctx context.Context, repo string, env Env) (_ []string, err error) {
	tmp, err := os.MkdirTemp("", "foldcorpus-buildpack-deps-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, f), data, 0o644); err != nil {
			return nil, err
		}
	}
	goflags := "GOFLAGS=" + strings.TrimSpace(env["GOFLAGS"]+" -mod=mod")
	out, err := GoIn(ctx, repo, append(env.Environ(), goflags), "list", "-modfile", filepath.Join(tmp, "go.mod"), "-deps", ".", Framework)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// UnwantedIn returns the packages of deps under an Unwanted prefix.
func UnwantedIn(deps []string) []string {
	var bad []string
	for _, d := range deps {
		for _, u := range Unwanted {
			if strings.HasPrefix(d, u) {
				bad = append(bad, d)
				break
			}
		}
	}
	return bad
}
