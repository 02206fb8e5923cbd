// Package testcorpus locates ../shared/corpus for tests: it skips the test
// with a clear message when the corpus is absent, and fails it instead when
// FOLDCORPUS_REQUIRE_CORPUS=1 (as CI sets it).
package testcorpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the absolute path of the shared corpus folder (the one holding
// afdb/, pdb/, edge/, reference/, golden/). FOLDCORPUS_CORPUS overrides the
// default location, ../shared/corpus relative to the repository root.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("FOLDCORPUS_CORPUS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		dir = filepath.Join(root, "..", "shared", "corpus")
	}
	dir, _ = filepath.Abs(dir)
	if _, err := os.Stat(filepath.Join(dir, "golden")); err != nil {
		if os.Getenv("FOLDCORPUS_REQUIRE_CORPUS") == "1" {
			tb.Fatalf("shared corpus required (FOLDCORPUS_REQUIRE_CORPUS=1) but not found at %s: %v", dir, err)
		}
		tb.Skipf("SKIP: shared corpus not found at %s (set FOLDCORPUS_CORPUS or check out ../shared); set FOLDCORPUS_REQUIRE_CORPUS=1 to make this a failure", dir)
	}
	return dir
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
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("FOLDCORPUS_REQUIRE_CORPUS") == "1" {
			tb.Fatalf("%s required (FOLDCORPUS_REQUIRE_CORPUS=1) but unavailable: %v; %s", path, err, why)
		}
		tb.Skipf("SKIP: %s unavailable (%v): %s; set FOLDCORPUS_REQUIRE_CORPUS=1 to make this a failure", path, err, why)
	}
	return path
}
