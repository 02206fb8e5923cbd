// Package buildpack replays what Google's Go buildpack does with the
// functions' uploaded source (GoogleCloudPlatform/buildpacks,
// cmd/go/functions_framework/lib/lib.go BuildFn and createMainGoMod;
// converter/get_package/main.go; cmd/go/build/main.go), so that tests and
// benchmarks build, serve and measure the binary Cloud Functions would
// deploy, with the build environment infra/functions.tf gives it:
//  1. the files of the source archive (SourceFiles) are written to an
//     empty application root, and every entry of it except
//     serverless_function_source_code and .google* is moved into
//     serverless_function_source_code/;
//  2. every *.go file of that folder is parsed (get_package: ParseDir with
//     ImportsOnly, test files included): one package name, its imports;
//  3. `go list -m` there; the module path needs a dot in its first element;
//  4. moduleAndPackageNames: if a folder named after the package exists at
//     the application root (it cannot, after step 1), the main imports
//     <module>/NAME, else the module root;
//  5. the declarative main (MainSource) when the package imports the
//     framework's functions package, else a main that calls
//     <package>.<TARGET> (refused here: this project registers
//     declaratively); go.mod must require the framework;
//  6. the main is written to serverless_function_source_code/functions.local/app,
//     `go mod tidy` runs, and the folder is built with the build
//     environment (Env: -gcflags/-ldflags from GOOGLE_GOGCFLAGS and
//     GOOGLE_GOLDFLAGS, everything else, GOFLAGS and CGO_ENABLED included,
//     as the go commands' environment).
package buildpack

import (
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	// SourceDir is the folder the buildpack moves the uploaded source into.
	SourceDir = "serverless_function_source_code"
	// AppModule is the folder (under SourceDir) of the generated main.
	AppModule = "functions.local/app"
	// FrameworkModule is functions-framework-go.
	FrameworkModule = "github.com/GoogleCloudPlatform/functions-framework-go"
	// FrameworkFunctions is the package a declarative function imports.
	FrameworkFunctions = FrameworkModule + "/functions"
	// Framework is the package the generated main starts the server with.
	Framework = FrameworkModule + "/funcframework"
)

// MainSource is the main the buildpack generates for a declarative
// function package pkg (converter/main.go.tmpl): blank import, then the
// framework's server on $PORT.
func MainSource(pkg string) string {
	return strings.Replace(mainTemplate, "{{.Package}}", pkg, 1)
}

const mainTemplate = `// Binary main file implements an HTTP server that loads and runs user's code
// on incoming HTTP requests.
package main

import (
	"log"
	"net/http"
	"os"

	_ "{{.Package}}"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
)

func main() {
	http.HandleFunc("/robots.txt", http.NotFound)
	http.HandleFunc("/favicon.ico", http.NotFound)

	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	if err := funcframework.Start(port); err != nil {
		log.Fatalf("Function failed to start: %v\n", err)
	}
}
`

// Options configure Build.
type Options struct {
	// Repo is the repository root: the source archive's files and
	// infra/functions.tf are read from it.
	Repo string
	// AppRoot is an empty folder: the application root of the replay.
	AppRoot string
	// Replace replaces some uploaded files' contents (by path relative to
	// Repo).
	Replace map[string]string
	// Env is the build environment; nil reads it from infra/functions.tf
	// (BuildEnv).
	Env Env
	// Output is the binary's path (AppRoot/function when empty).
	Output string
}

// Result is a replayed build.
type Result struct {
	// Binary is the built function binary.
	Binary string
	// Package is the package the generated main imports.
	Package string
	// Env is the build environment it was built with.
	Env Env
}

// Build replays the buildpack (see the package comment) and builds the
// function binary. It writes only under AppRoot (and Output); a failing
// step is an error naming it, with the go command's output.
func Build(ctx context.Context, o Options) (Result, error) {
	var r Result
	env := o.Env
	if env == nil {
		var err error
		if env, err = BuildEnv(o.Repo); err != nil {
			return r, err
		}
	}
	r.Env = env
	files, err := SourceFiles(o.Repo)
	if err != nil {
		return r, err
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(o.Repo, f))
		if err != nil {
			return r, fmt.Errorf("the source archive names %s: %w", f, err)
		}
		if rep, ok := o.Replace[f]; ok {
			data = []byte(rep)
		}
		dst := filepath.Join(o.AppRoot, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return r, err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return r, err
		}
	}
	// 1. Move.
	src := filepath.Join(o.AppRoot, SourceDir)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return r, err
	}
	entries, err := os.ReadDir(o.AppRoot)
	if err != nil {
		return r, err
	}
	for _, e := range entries {
		if e.Name() == SourceDir || strings.HasPrefix(e.Name(), ".google") {
			continue
		}
		if err := os.Rename(filepath.Join(o.AppRoot, e.Name()), filepath.Join(src, e.Name())); err != nil {
			return r, err
		}
	}
	// 2. Package name and imports.
	name, imports, err := packageNameAndImports(src)
	if err != nil {
		return r, fmt.Errorf("buildpack: error extracting package name: %w", err)
	}
	// 3, 4. Module and package.
	out, err := GoIn(ctx, src, env.Environ(), "list", "-m")
	if err != nil {
		return r, err
	}
	mod := strings.TrimSpace(out)
	if first, _, _ := strings.Cut(mod, "/"); !strings.Contains(first, ".") {
		return r, fmt.Errorf("buildpack: the module path in the function's go.mod must contain a dot in the first path element, found: %s", mod)
	}
	r.Package = mod
	if _, err := os.Stat(filepath.Join(o.AppRoot, name)); err == nil {
		r.Package = mod + "/" + name
	}
	// 5. Template.
	if !imports[FrameworkFunctions] {
		return r, fmt.Errorf("buildpack: package %s does not import %s, so the buildpack generates the main that calls %s.<FUNCTION_TARGET>; this project registers its functions declaratively", r.Package, FrameworkFunctions, name)
	}
	if v, err := GoIn(ctx, src, env.Environ(), "list", "-m", "-f", "{{.Version}}", FrameworkModule); err != nil || strings.TrimSpace(v) == "" {
		return r, fmt.Errorf("buildpack: go.mod does not require %s, so the buildpack injects its own version: %v", FrameworkModule, err)
	}
	// 6. Generate, tidy, build.
	mainDir := filepath.Join(src, filepath.FromSlash(AppModule))
	if err := os.MkdirAll(mainDir, 0o755); err != nil {
		return r, err
	}
	if err := os.WriteFile(filepath.Join(mainDir, "main.go"), []byte(MainSource(r.Package)), 0o644); err != nil {
		return r, err
	}
	if _, err := GoIn(ctx, src, append(env.Environ(), "GOFLAGS="+strings.TrimSpace(env["GOFLAGS"]+" -mod=mod")), "mod", "tidy"); err != nil {
		return r, err
	}
	r.Binary = o.Output
	if r.Binary == "" {
		r.Binary = filepath.Join(o.AppRoot, "function")
	}
	args := append(append([]string{"build"}, env.BuildArgs()...), "-o", r.Binary, "./"+AppModule)
	if _, err := GoIn(ctx, src, env.Environ(), args...); err != nil {
		return r, err
	}
	return r, nil
}

// packageNameAndImports is converter/get_package: every .go file of dir,
// test files included, must hold one package.
func packageNameAndImports(dir string) (string, map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", nil, err
	}
	fset := token.NewFileSet()
	name, imports := "", map[string]bool{}
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			return "", nil, fmt.Errorf("failed to parse source in %s: %w", dir, err)
		}
		if name != "" && af.Name.Name != name {
			return "", nil, fmt.Errorf("multiple packages in user code directory: %s != %s", name, af.Name.Name)
		}
		name = af.Name.Name
		for _, im := range af.Imports {
			imports[strings.Trim(im.Path.Value, `"`)] = true
		}
	}
	if name == "" {
		return "", nil, fmt.Errorf("unable to find Go package in %s", dir)
	}
	return name, imports, nil
}

// GoIn runs the go command in dir with env added to this process's
// environment and returns its standard output.
func GoIn(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("go %s in %s (%s): %w\n%s", strings.Join(args, " "), dir, strings.Join(env, " "), err, stderr.String())
	}
	return string(out), nil
}
