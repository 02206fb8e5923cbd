package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestBuildWithoutCgoSaysSo: without cgo the CLI's packages still load
// (the DuckDB commands are left out), so the build reaches nocgo.go, whose
// compile error is the sentence README gives. The compile itself is checked
// by hand (`CGO_ENABLED=0 go build ./cmd/foldcorpus`: it rebuilds every
// dependency without cgo, too slow for CI); on 2026-12-01 it printed
//
//	cmd/foldcorpus/nocgo.go:11:13: cannot use "foldcorpus needs cgo and a C toolchain (gcc): build with CGO_ENABLED=1" (untyped string constant) as int value in variable declaration
//
// once tpujob_xla.go (go-xla's PJRT bindings load without cgo but do not
// compile) was tagged cgo too: a dependency of that kind shows only there.
func TestBuildWithoutCgoSaysSo(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-deps", "-f", "{{if .Error}}{{.ImportPath}}: {{.Error}}{{end}}", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("CGO_ENABLED=0 go list -deps: %v\n%s\n(a package that needs cgo is imported by a file not tagged cgo: the build would fail inside it, not with the sentence)", err, out)
	}
	cmd = exec.Command("go", "list", "-f", "{{.GoFiles}}", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err = cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "nocgo.go") {
		t.Fatalf("CGO_ENABLED=0: nocgo.go is not built: %v %s", err, out)
	}
	src, err := os.ReadFile("nocgo.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`var _ int = "([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("nocgo.go does not stop the build with a sentence (var _ int = \"...\")")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), string(m[1])) {
		t.Errorf("README does not give the build's sentence %q", m[1])
	}
}
