package housecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// maxBodyLines is the longest function body the house style allows
// (STYLE.md: functions under ~150 lines).
const maxBodyLines = 150

// allowlist names the functions still over maxBodyLines, by module path
// and function name (Type.Method for methods), each with the reason it has
// not been split yet.
var allowlist = map[string]string{}

// longFunc is a function whose body is over the limit.
type longFunc struct {
	key   string // "PATH NAME", as allowlist names it
	pos   string // PATH:LINE of the func keyword
	lines int    // body lines, braces included
}

// TestFunctionLength fails listing every function body of the module over
// maxBodyLines lines that the allowlist does not name, and every allowlist
// entry that no longer names one.
func TestFunctionLength(t *testing.T) {
	root := moduleRoot(t)
	long, files, err := longFunctions(root, maxBodyLines)
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("only %d non-test .go files under %s: the walk is wrong", files, root)
	}
	over := map[string]bool{}
	for _, f := range long {
		over[f.key] = true
		if _, ok := allowlist[f.key]; !ok {
			t.Errorf("%s: %s has a %d-line body (limit %d): split it into well-named smaller functions, or add it to allowlist with a reason",
				f.pos, f.key[strings.LastIndexByte(f.key, ' ')+1:], f.lines, maxBodyLines)
		}
	}
	for _, key := range sortedKeys(allowlist) {
		if !over[key] {
			t.Errorf("allowlist entry %q names no function over %d lines (split, renamed or removed): delete the entry", key, maxBodyLines)
		}
	}
}

// TestLongFunctionsLimit checks the counting on a made-up module: a body
// of exactly the limit passes, one line more is reported (a method by
// Type.Method), and test files, testdata and dot folders are not read.
func TestLongFunctionsLimit(t *testing.T) {
	root := t.TempDir()
	body := func(name string, lines int) string { // lines: braces included
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	write := func(rel, src string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("a/a.go", "package a\n\n"+body("atLimit", 10)+body("over", 11)+
		"type T struct{}\n\nfunc (t *T) M() {\n"+strings.Repeat("\t_ = 0\n", 10)+"}\n")
	write("a/a_test.go", "package a\n\n"+body("testOver", 50))
	write("a/testdata/x.go", "package x\n\n"+body("dataOver", 50))
	write(".hidden/h.go", "package h\n\n"+body("hiddenOver", 50))
	long, files, err := longFunctions(root, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range long {
		got = append(got, fmt.Sprintf("%s %s %d", f.key, f.pos, f.lines))
	}
	want := []string{"a/a.go T.M a/a.go:26 12", "a/a.go over a/a.go:13 11"}
	if files != 1 || strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("longFunctions: %d files, %q; want 1 file, %q", files, got, want)
	}
}

// longFunctions parses every non-test .go file under root and returns the
// function declarations whose bodies are over max lines, sorted by key,
// and the number of files read.
func longFunctions(root string, max int) ([]longFunc, int, error) {
	var long []longFunc
	files := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		files++
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.Body.Rbrace).Line - fset.Position(fd.Body.Lbrace).Line + 1
			if n > max {
				long = append(long, longFunc{key: rel + " " + funcName(fd), pos: fmt.Sprintf("%s:%d", rel, fset.Position(fd.Pos()).Line), lines: n})
			}
		}
		return nil
	})
	sort.Slice(long, func(i, j int) bool { return long[i].key < long[j].key })
	return long, files, err
}

// funcName is fd's name, Type.Method for a method (pointer and type
// parameters left out).
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

// moduleRoot is the folder of the module's go.mod, two above this file's.
func moduleRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the module root %s: %v", root, err)
	}
	return root
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
