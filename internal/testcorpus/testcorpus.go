// Package testcorpus locates ../shared/corpus for tests: it skips the test
// with a clear message when the corpus is absent, and fails it instead when
// FOLDCORPUS_REQUIRE_CORPUS=1 (as CI sets it).
package testcorpus

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Dir returns the absolute path of the shared corpus folder (the one holding
// afdb/, pdb/, edge/, reference/, golden/). FOLDCORPUS_CORPUS overrides the
// default location, ../shared/corpus relative to the repository root.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := Location()
	if _, err := os.Stat(cacheVisible(filepath.Join(dir, "golden"))); err != nil {
		if os.Getenv("FOLDCORPUS_REQUIRE_CORPUS") == "1" {
			tb.Fatalf("shared corpus required (FOLDCORPUS_REQUIRE_CORPUS=1) but not found at %s: %v", dir, err)
		}
		tb.Skipf("SKIP: shared corpus not found at %s (set FOLDCORPUS_CORPUS or check out ../shared); set FOLDCORPUS_REQUIRE_CORPUS=1 to make this a failure", dir)
	}
	return dir
}

// Location is where Dir looks for the corpus (FOLDCORPUS_CORPUS, else
// ../shared/corpus beside the repository), as an absolute path, without
// checking that it is there: for a test that must also run without the
// corpus (a fuzz target seeding from it when present). Every other test
// calls Dir, Files or Tool, which skip without it.
func Location() string {
	dir := os.Getenv("FOLDCORPUS_CORPUS")
	if dir == "" {
		dir = filepath.Join(moduleRoot(), "..", "shared", "corpus")
	}
	dir, _ = filepath.Abs(dir)
	return dir
}

// moduleRoot is the repository root (the folder holding go.mod).
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// cacheVisible writes an absolute path so that `go test`'s cache notices
// when it appears or disappears. The go command records every file a test
// stats or opens and reruns the test when one of them changes, but only
// files it takes to be inside the module: it compares the path's text with
// the module root's, without cleaning it. ../shared/corpus is outside, so a
// plain stat of it is not tracked, and a test that skipped without the
// corpus stays "ok (cached)" after the corpus appears. Written as
// ROOT/../shared/corpus/... (the same file), the stat is tracked.
func cacheVisible(path string) string {
	root := moduleRoot()
	rel, err := filepath.Rel(root, path)
	if err != nil || !strings.HasPrefix(rel, "..") {
		return path // inside the module already, or on another volume
	}
	return root + string(filepath.Separator) + rel
}

// Files returns the corpus files of one category ("afdb", "pdb", "edge"),
// sorted, as absolute paths.
func Files(tb testing.TB, category string) []string {
	tb.Helper()
	matches, err := filepath.Glob(filepath.Join(Dir(tb), category, "*.cif"))
	if err != nil || len(matches) == 0 {
		tb.Fatalf("no corpus files in %s: %v", category, err)
	}
	return matches
}

// Tool returns path (an outside program a test compares against, e.g.
// /usr/bin/python3) when it exists; otherwise it skips the test with why,
// or fails it when FOLDCORPUS_REQUIRE_CORPUS=1 (as CI sets it), so that an
// oracle cannot go silent where it must run.
func Tool(tb testing.TB, path, why string) string {
	tb.Helper()
	if _, err := os.Stat(cacheVisible(path)); err != nil {
		if os.Getenv("FOLDCORPUS_REQUIRE_CORPUS") == "1" {
			tb.Fatalf("%s required (FOLDCORPUS_REQUIRE_CORPUS=1) but unavailable: %v; %s", path, err, why)
		}
		tb.Skipf("SKIP: %s unavailable (%v): %s; set FOLDCORPUS_REQUIRE_CORPUS=1 to make this a failure", path, err, why)
	}
	return path
}
