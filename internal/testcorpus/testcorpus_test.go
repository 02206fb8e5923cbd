package testcorpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The path a test stats must start with the module root's text (what the
// go command's test cache checks before it tracks a file) and name the same
// file as the plain path.
func TestCacheVisible(t *testing.T) {
	root := moduleRoot()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("moduleRoot %s holds no go.mod: %v", root, err)
	}
	outside := filepath.Join(filepath.Dir(root), "some-sibling", "corpus", "golden")
	for _, p := range []string{outside, filepath.Join(root, "internal", "testcorpus"), "/usr/bin/python3"} {
		got := cacheVisible(p)
		if !strings.HasPrefix(got, root+string(filepath.Separator)) {
			t.Errorf("cacheVisible(%s) = %s: not under the module root %s as text, so go test's cache ignores it", p, got, root)
		}
		if filepath.Clean(got) != p {
			t.Errorf("cacheVisible(%s) = %s names another file (%s)", p, got, filepath.Clean(got))
		}
	}
	here := cacheVisible(filepath.Join(root, "go.mod"))
	if fi, err := os.Stat(here); err != nil || fi.IsDir() {
		t.Errorf("stat %s: %v", here, err)
	}
}
