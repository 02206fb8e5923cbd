package emulatortests

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// What Google's Go buildpack does with an uploaded function source
// (GoogleCloudPlatform/buildpacks, cmd/go/functions_framework/lib/lib.go,
// BuildFn and createMainGoMod; converter/get_package/main.go), replayed in
// the same order by buildpackBuild:
//  1. move every entry of the application root except
//     serverless_function_source_code and .google* into
//     serverless_function_source_code/;
//  2. parse every *.go file of that folder (get_package: ParseDir with
//     ImportsOnly, test files included): one package name, its imports;
//  3. `go list -m` there; the module path needs a dot in its first element;
//  4. moduleAndPackageNames: if a folder named after the package exists at
//     the application root (it cannot, after step 1), import <module>/NAME,
//     else the module root;
//  5. the declarative main when the package imports the framework's
//     functions package, else a main that calls <package>.<TARGET>;
//  6. write it to serverless_function_source_code/functions.local/app,
//     `go mod tidy`, then build that folder.
const (
	fnSourceDir   = "serverless_function_source_code"
	appModule     = "functions.local/app"
	ffModule      = "github.com/GoogleCloudPlatform/functions-framework-go"
	ffFunctionPkg = ffModule + "/functions"
)

// buildpackBuild builds the function binary from the files the deployment
// uploads (functionSourceFiles) the way the buildpack does, in appRoot (an
// empty folder), and returns the binary's path and the package its main
// imports.
func buildpackBuild(appRoot string) (bin, pkg string, err error) {
	return buildpackBuildWith(appRoot, nil)
}

// buildpackBuildWith is buildpackBuild with some uploaded files' contents
// replaced (by path relative to the repository root).
func buildpackBuildWith(appRoot string, replace map[string]string) (bin, pkg string, err error) {
	files, err := functionSourceFiles()
	if err != nil {
		return "", "", err
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(repoRoot(), f))
		if err != nil {
			return "", "", fmt.Errorf("the source archive names %s: %w", f, err)
		}
		if r, ok := replace[f]; ok {
			data = []byte(r)
		}
		dst := filepath.Join(appRoot, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return "", "", err
		}
	}
	// 1. Move.
	src := filepath.Join(appRoot, fnSourceDir)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", "", err
	}
	entries, err := os.ReadDir(appRoot)
	if err != nil {
		return "", "", err
	}
	for _, e := range entries {
		if e.Name() == fnSourceDir || strings.HasPrefix(e.Name(), ".google") {
			continue
		}
		if err := os.Rename(filepath.Join(appRoot, e.Name()), filepath.Join(src, e.Name())); err != nil {
			return "", "", err
		}
	}
	// 2. Package name and imports.
	name, imports, err := packageNameAndImports(src)
	if err != nil {
		return "", "", fmt.Errorf("buildpack: error extracting package name: %w", err)
	}
	// 3, 4. Module and package.
	out, err := goIn(src, nil, "list", "-m")
	if err != nil {
		return "", "", err
	}
	mod := strings.TrimSpace(out)
	if first, _, _ := strings.Cut(mod, "/"); !strings.Contains(first, ".") {
		return "", "", fmt.Errorf("buildpack: the module path in the function's go.mod must contain a dot in the first path element, found: %s", mod)
	}
	pkg = mod
	if _, err := os.Stat(filepath.Join(appRoot, name)); err == nil {
		pkg = mod + "/" + name
	}
	// 5. Template.
	if !imports[ffFunctionPkg] {
		return "", pkg, fmt.Errorf("buildpack: package %s does not import %s, so the buildpack generates the main that calls %s.<FUNCTION_TARGET>; this project registers its functions declaratively", pkg, ffFunctionPkg, name)
	}
	if v, err := goIn(src, nil, "list", "-m", "-f", "{{.Version}}", ffModule); err != nil || strings.TrimSpace(v) == "" {
		return "", pkg, fmt.Errorf("buildpack: go.mod does not require %s, so the buildpack injects its own version: %v", ffModule, err)
	}
	// 6. Generate, tidy, build.
	mainDir := filepath.Join(src, filepath.FromSlash(appModule))
	if err := os.MkdirAll(mainDir, 0o755); err != nil {
		return "", pkg, err
	}
	if err := os.WriteFile(filepath.Join(mainDir, "main.go"), []byte(strings.Replace(deployMain, "{{.Package}}", pkg, 1)), 0o644); err != nil {
		return "", pkg, err
	}
	if _, err := goIn(src, []string{"GOFLAGS=-mod=mod"}, "mod", "tidy"); err != nil {
		return "", pkg, err
	}
	bin = filepath.Join(appRoot, "function")
	if _, err := goIn(src, []string{"CGO_ENABLED=1"}, "build", "-o", bin, "./"+appModule); err != nil {
		return "", pkg, err
	}
	return bin, pkg, nil
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

// runWithTimeout runs cmd, killing it after d, and returns its output.
func runWithTimeout(cmd *exec.Cmd, d time.Duration) (string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("still running after %s", d)
	}
}

func goIn(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("go %s in %s: %w\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return string(out), nil
}

// functionSourceFiles lists the repository files the deployment zips as the
// functions' source (infra/functions.tf: local.function_source_files and
// local.function_source_globs, with Terraform's fileset patterns; test files
// and testdata are left out there too), relative to the repository root.
func functionSourceFiles() ([]string, error) {
	tfPath := filepath.Join(repoRoot(), "infra", "functions.tf")
	file, diags := hclparse.NewParser().ParseHCLFile(tfPath)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: %s", tfPath, diags.Error())
	}
	lists := map[string][]string{}
	for _, b := range file.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "locals" {
			continue
		}
		for _, n := range []string{"function_source_files", "function_source_globs"} {
			a, ok := b.Body.Attributes[n]
			if !ok {
				continue
			}
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() {
				return nil, fmt.Errorf("%s: local.%s must be a literal list: %s", tfPath, n, diags.Error())
			}
			for _, e := range v.AsValueSlice() {
				lists[n] = append(lists[n], e.AsString())
			}
		}
	}
	if len(lists["function_source_files"]) == 0 || len(lists["function_source_globs"]) == 0 {
		return nil, fmt.Errorf("%s: no local.function_source_files or local.function_source_globs", tfPath)
	}
	set := map[string]bool{}
	for _, f := range lists["function_source_files"] {
		set[f] = true
	}
	err := filepath.WalkDir(repoRoot(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot(), p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, "_test.go") || strings.Contains(rel, "testdata/") {
			return nil
		}
		for _, g := range lists["function_source_globs"] {
			if filesetMatch(g, rel) {
				set[rel] = true
			}
		}
		return nil
	})
	files := make([]string, 0, len(set))
	for f := range set {
		files = append(files, f)
	}
	sort.Strings(files)
	return files, err
}

// filesetMatch matches name against a Terraform fileset pattern: {a,b}
// alternatives, ** for any number of folders, path.Match otherwise.
func filesetMatch(pattern, name string) bool {
	if i := strings.IndexByte(pattern, '{'); i >= 0 {
		j := strings.IndexByte(pattern[i:], '}') + i
		for _, alt := range strings.Split(pattern[i+1:j], ",") {
			if filesetMatch(pattern[:i]+alt+pattern[j+1:], name) {
				return true
			}
		}
		return false
	}
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if matchSegments(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], name[0])
	return err == nil && ok && matchSegments(pat[1:], name[1:])
}
