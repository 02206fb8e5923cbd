package needcgo

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCgoLayout: the C lives in .h files of the package that compiles it.
// A cgo preamble holds only #cgo directives (no -I: no other folder's
// headers) and #include "NAME.h" of a header in its own folder, and a
// header includes only headers of its own folder by quoted name. The go
// command keys its build cache on the package folder's own headers, so an
// include from elsewhere could leave a stale build after an edit.
func TestCgoLayout(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	preambles := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		switch filepath.Ext(name) {
		case ".go":
			pre, line, err := preamble(path)
			if err != nil || line == 0 {
				return err
			}
			preambles++
			cLines, first := 0, 0
			for i, l := range strings.Split(pre, "\n") {
				l = strings.TrimSpace(l)
				switch {
				case l == "":
				case strings.HasPrefix(l, "#cgo "):
					if strings.Contains(l, "-I") {
						t.Errorf("%s:%d: %s: an include path outside the package folder", rel, line+i, l)
					}
				case strings.HasPrefix(l, "#include "):
					checkInclude(t, rel, line+i, l, filepath.Dir(path))
				default:
					if cLines++; first == 0 {
						first = line + i
					}
				}
			}
			if cLines > 0 {
				t.Errorf("%s:%d: %d lines of C in the cgo preamble: move them to a .h of the package", rel, first, cLines)
			}
		case ".h", ".c":
			f, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sc := bufio.NewScanner(bytes.NewReader(f))
			for n := 1; sc.Scan(); n++ {
				if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "#include \"") {
					checkInclude(t, rel, n, l, filepath.Dir(path))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if preambles < 5 {
		t.Fatalf("found %d cgo preambles under %s: the walk is wrong", preambles, root)
	}
}

// checkInclude reports an #include "..." that is not a header of dir.
func checkInclude(t *testing.T, file string, line int, l, dir string) {
	t.Helper()
	rest := strings.TrimSpace(strings.TrimPrefix(l, "#include"))
	if strings.HasPrefix(rest, "<") {
		return // a system header
	}
	name := strings.Trim(rest, `"`)
	if strings.ContainsAny(name, `/\`) || !strings.HasSuffix(name, ".h") {
		t.Errorf("%s:%d: %s: include a header of the package's own folder by name", file, line, l)
		return
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Errorf("%s:%d: %s: not in the package's folder: %v", file, line, l, err)
	}
}

// preamble returns the cgo preamble of the Go file at path (the comment
// above import "C") and its first line; line 0 when the file has none.
func preamble(path string) (string, int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return "", 0, err
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		for _, s := range g.Specs {
			is := s.(*ast.ImportSpec)
			if is.Path.Value != `"C"` {
				continue
			}
			doc := is.Doc
			if doc == nil {
				doc = g.Doc
			}
			if doc == nil {
				return "", fset.Position(is.Pos()).Line, nil
			}
			var b strings.Builder
			for _, c := range doc.List {
				text := c.Text
				if strings.HasPrefix(text, "//") {
					b.WriteString(strings.TrimPrefix(text, "//") + "\n")
				} else {
					b.WriteString(strings.TrimSuffix(strings.TrimPrefix(text, "/*"), "*/"))
				}
			}
			return b.String(), fset.Position(doc.Pos()).Line, nil
		}
	}
	return "", 0, nil
}
