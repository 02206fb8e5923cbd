package housecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/foldcorpus/foldcorpus/"

// The module's layers, lowest first, by import path prefix (after the
// module path). A package imports only from its own layer or below.
var layers = [][]string{
	// algorithms and data: what a structure is, how to read it, ConFind,
	// curation, assemblies, the random draws; the error kinds and the
	// storage interface an algorithm reads its large inputs through
	{"internal/derrors", "internal/blob", "internal/structure", "internal/geom", "internal/pyrandom", "internal/contactrecord",
		"internal/mmcif", "internal/confind", "internal/curation", "internal/assembly", "internal/bio2token",
		"internal/needcgo", "internal/version"},
	// the seams: formats, objects, ledgers, queues, files
	{"internal/format", "internal/ledger", "internal/queue", "internal/manifest", "internal/corpus", "internal/pdbheader",
		"internal/bio2token/b2tgolden"}, // a golden reader for tests, over manifest's parquet
	// the document formats (and their registry), and the seams' adapters
	{"internal/formats/", "internal/localblob", "internal/gcs", "internal/blobmux", "internal/faultblob",
		"internal/localledger", "internal/firestoreledger", "internal/localqueue", "internal/pubsubq", "internal/hf"},
	// the drivers: the stages, the runners, the checks over them
	{"planner", "shardfn", "tpujob", "internal/localrun", "internal/verify", "internal/report",
		"internal/selection", "internal/dedup", "internal/leakage", "internal/filelist", "internal/datacard"},
	// the composition roots
	{"cmd/", "functions"},
}

// layerOf is the layer of a module package (-1 when it is in none).
func layerOf(pkg string) int {
	rel, ok := strings.CutPrefix(pkg, module)
	if !ok {
		return -1
	}
	best, bestLen := -1, 0
	for i, prefixes := range layers {
		for _, p := range prefixes {
			if (rel == strings.TrimSuffix(p, "/") || strings.HasPrefix(rel, strings.TrimSuffix(p, "/")+"/")) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

// goList runs go list on the module's packages (test files excluded).
func goList(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = moduleRoot(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestNoUpwardImports: no package imports one of a higher layer (an
// algorithm a format, a format a driver, a driver a composition root),
// and the planner and the shard worker link no format: the composition
// roots give them one (registry.Registry.Constructor).
func TestNoUpwardImports(t *testing.T) {
	var upward []string
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(goList(t, "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")), "\n") {
		f := strings.Fields(line)
		from := layerOf(f[0])
		if from < 0 {
			continue
		}
		pkgs++
		for _, imp := range f[1:] {
			if to := layerOf(imp); to > from {
				upward = append(upward, strings.TrimPrefix(f[0], module)+" -> "+strings.TrimPrefix(imp, module))
			}
		}
	}
	t.Logf("%d layered packages, %d upward imports", pkgs, len(upward))
	for _, u := range upward {
		t.Errorf("upward import: %s", u)
	}
	if pkgs < 30 {
		t.Errorf("only %d packages placed in a layer: the layer table no longer matches the module", pkgs)
	}
	for _, dep := range strings.Fields(goList(t, "-deps", "./planner", "./shardfn")) {
		if strings.HasPrefix(dep, module+"internal/formats/") {
			t.Errorf("planner or shardfn links the format package %s", dep)
		}
	}
}

// TestNoPackageRegistry: the format registry has no package-level
// variable (the composition roots build one: registry.Builtin).
func TestNoPackageRegistry(t *testing.T) {
	dir := filepath.Join(moduleRoot(t), "internal", "formats", "registry")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				t.Errorf("%s: a package-level var in the format registry", filepath.Base(name))
			}
		}
	}
}
