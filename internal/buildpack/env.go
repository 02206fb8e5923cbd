package buildpack

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// The buildpack's build-time variables (GoogleCloudPlatform/buildpacks,
// pkg/env/env.go: GoGCFlags, GoLDFlags; cmd/go/build/main.go goBuildFlags
// appends "-gcflags V" then "-ldflags V" to `go build`, tested by
// TestGoBuildFlags there; README "Go Buildpacks": "Passed to go build and
// go run as -ldflags value with no interpretation"). Every other variable
// is the environment of the build's go commands (README "Language-idiomatic
// configuration options": GO<key>, e.g. GOFLAGS=-flag=value passes
// -flag=value to go commands). Cloud Functions hands
// build_config.environment_variables to the build as such variables.
const (
	GoGCFlags = "GOOGLE_GOGCFLAGS"
	GoLDFlags = "GOOGLE_GOLDFLAGS"
)

// Env is the build environment of the deployed functions.
type Env map[string]string

// BuildArgs are the arguments the buildpack adds to `go build` for e, in
// its order (-gcflags, then -ldflags).
func (e Env) BuildArgs() []string {
	var args []string
	if v := e[GoGCFlags]; v != "" {
		args = append(args, "-gcflags", v)
	}
	if v := e[GoLDFlags]; v != "" {
		args = append(args, "-ldflags", v)
	}
	return args
}

// Environ is e's variables other than the buildpack's own (GOOGLE_*), as
// KEY=VALUE, sorted: the environment of the build's go commands.
func (e Env) Environ() []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(e)) {
		if !strings.HasPrefix(k, "GOOGLE_") {
			out = append(out, k+"="+e[k])
		}
	}
	return out
}

// Tags are the build tags e's GOFLAGS sets (-tags=a,b or -tags a,b).
func (e Env) Tags() []string {
	f := strings.Fields(e["GOFLAGS"])
	for i, a := range f {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if v, ok := strings.CutPrefix(a, "tags="); ok {
			return strings.Split(v, ",")
		}
		if a == "tags" && i+1 < len(f) {
			return strings.Split(f[i+1], ",")
		}
	}
	return nil
}

// functionsTF is what SourceFiles and BuildEnv read from infra/functions.tf.
type functionsTF struct {
	path string
	// locals are the locals whose values are literals (others are left
	// out: they reference variables and resources).
	locals map[string]cty.Value
	body   *hclsyntax.Body
}

func parseFunctionsTF(repo string) (*functionsTF, error) {
	p := filepath.Join(repo, "infra", "functions.tf")
	file, diags := hclparse.NewParser().ParseHCLFile(p)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: %s", p, diags.Error())
	}
	tf := &functionsTF{path: p, locals: map[string]cty.Value{}, body: file.Body.(*hclsyntax.Body)}
	for _, b := range tf.body.Blocks {
		if b.Type != "locals" {
			continue
		}
		for n, a := range b.Body.Attributes {
			if v, diags := a.Expr.Value(nil); !diags.HasErrors() {
				tf.locals[n] = v
			}
		}
	}
	return tf, nil
}

// BuildEnv reads the build environment of the Cloud Functions in repo's
// infra/functions.tf: build_config.environment_variables of every
// google_cloudfunctions2_function (a literal map, or a reference to a
// literal local). They are built from one source archive, so they must
// agree: a difference is an error naming both functions.
func BuildEnv(repo string) (Env, error) {
	tf, err := parseFunctionsTF(repo)
	if err != nil {
		return nil, err
	}
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"local": cty.ObjectVal(tf.locals)}}
	var env Env
	first := ""
	for _, b := range tf.body.Blocks {
		if b.Type != "resource" || len(b.Labels) != 2 || b.Labels[0] != "google_cloudfunctions2_function" {
			continue
		}
		name := b.Labels[1]
		var bc *hclsyntax.Body
		for _, sb := range b.Body.Blocks {
			if sb.Type == "build_config" {
				bc = sb.Body
			}
		}
		if bc == nil {
			return nil, fmt.Errorf("%s: function %s has no build_config", tf.path, name)
		}
		e := Env{}
		if a, ok := bc.Attributes["environment_variables"]; ok {
			v, diags := a.Expr.Value(ctx)
			if diags.HasErrors() {
				return nil, fmt.Errorf("%s: function %s: build_config.environment_variables must be literal (or a literal local): %s", tf.path, name, diags.Error())
			}
			if !v.CanIterateElements() {
				return nil, fmt.Errorf("%s: function %s: build_config.environment_variables is not a map", tf.path, name)
			}
			for k, x := range v.AsValueMap() {
				if x.Type() != cty.String {
					return nil, fmt.Errorf("%s: function %s: build variable %s is not a string", tf.path, name, k)
				}
				e[k] = x.AsString()
			}
		}
		if env == nil {
			env, first = e, name
		} else if !maps.Equal(env, e) {
			return nil, fmt.Errorf("%s: functions %s and %s are built from one source with different build_config.environment_variables (%v, %v): the build replay cannot stand for both", tf.path, first, name, env, e)
		}
	}
	if env == nil {
		return nil, fmt.Errorf("%s: no google_cloudfunctions2_function", tf.path)
	}
	return env, nil
}

// String shows e as KEY=VALUE pairs, sorted.
func (e Env) String() string {
	var parts []string
	for k, v := range e {
		parts = append(parts, fmt.Sprintf("%s=%q", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
