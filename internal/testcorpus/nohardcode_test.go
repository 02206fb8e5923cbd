package testcorpus

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoHardcodedCorpus: no test names ../shared in a string literal (a
// path with a "shared" element, or the element alone, as in
// filepath.Join("..", "shared", "corpus")). Such a test opens the corpus
// itself and fails on a clone without it instead of skipping; it must go
// through Dir, Files or Tool (or Location, which does not skip). Every
// _test.go file of the module is parsed; this package is the exception (it
// is where the corpus is found, and its fixtures quote skip messages).
func TestNoHardcodedCorpus(t *testing.T) {
	root := moduleRoot()
	var bad []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path == filepath.Join(root, "internal", "testcorpus") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		hits, err := corpusLiterals(path)
		bad = append(bad, hits...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d _test.go files under %s: the walk is wrong", files, root)
	}
	for _, b := range bad {
		t.Errorf("%s: names the shared corpus directly; use testcorpus.Dir/Files/Tool so the test skips without it", b)
	}
}

// corpusLiterals returns "file:line: literal" for each string literal of
// the Go file at path that names the shared folder.
func corpusLiterals(path string) ([]string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var hits []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, err := strconv.Unquote(lit.Value)
		if err == nil && namesShared(v) {
			pos := fset.Position(lit.Pos())
			name, err := filepath.Rel(moduleRoot(), pos.Filename)
			if err != nil {
				name = pos.Filename
			}
			hits = append(hits, fmt.Sprintf("%s:%d: %s", name, pos.Line, lit.Value))
		}
		return true
	})
	return hits, nil
}

// namesShared reports whether s is a path with an element "shared"
// ("../shared/corpus/afdb", "/work/shared", "shared").
func namesShared(s string) bool {
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
		if e == "shared" {
			return true
		}
	}
	return false
}

func TestNamesShared(t *testing.T) {
	for s, want := range map[string]bool{
		"../../../shared/corpus/golden": true, "shared": true, "/work/shared": true, `..\shared\corpus`: true,
		"shared corpus not found": false, "sharedcorpus/x": false, "a/unshared/b": false, "": false,
	} {
		if got := namesShared(s); got != want {
			t.Errorf("namesShared(%q) = %v, want %v", s, got, want)
		}
	}
}
