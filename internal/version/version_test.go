package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	tests := []struct {
		name    string
		version string
		rev     string
		dirty   string
		want    string
	}{
		{"tagged", "v1.2.3", "", "", "v1.2.3"},
		{"pseudo-version from vcs", "v0.0.0-20261201131121-57c0bab0e1f2+dirty", "57c0bab0e1f2aaaa", "true", "v0.0.0-20261201131121-57c0bab0e1f2+dirty"},
		{"devel with revision", "(devel)", "57c0bab0e1f2aaaa", "false", "devel-57c0bab0e1f2"},
		{"devel dirty", "(devel)", "57c0bab0e1f2aaaa", "true", "devel-57c0bab0e1f2+dirty"},
		{"nothing stamped", "(devel)", "", "", "devel"},
		{"empty", "", "", "", "devel"},
	}
	for _, tt := range tests {
		bi := &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Path: "github.com/foldcorpus/foldcorpus", Version: tt.version}}
		if tt.rev != "" {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: "vcs.revision", Value: tt.rev}, debug.BuildSetting{Key: "vcs.modified", Value: tt.dirty})
		}
		if got := fromBuildInfo(bi).Version; got != tt.want {
			t.Errorf("%s: fromBuildInfo(%q, rev %q, modified %q) = %q, want %q", tt.name, tt.version, tt.rev, tt.dirty, got, tt.want)
		}
	}
}

// fromSourceTree reads this repository's checkout as the go command would
// stamp it.
func TestFromSourceTree(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("SKIP: git not on the PATH: %v", err)
	}
	dir := t.TempDir()
	runGit := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", dir, "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, _, ok := fromSourceTree(dir); ok {
		t.Fatal("fromSourceTree of a folder that is no checkout: ok")
	}
	runGit("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit("add", "f")
	runGit("commit", "-qm", "c")
	head := runGit("rev-parse", "HEAD")
	if rev, modified, ok := fromSourceTree(dir); !ok || rev != head || modified {
		t.Errorf("clean tree: fromSourceTree = %q, %v, %v; want %q, false, true", rev, modified, ok, head)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rev, modified, ok := fromSourceTree(dir); !ok || rev != head || !modified {
		t.Errorf("changed tree: fromSourceTree = %q, %v, %v; want %q, true, true", rev, modified, ok, head)
	}
	if got, want := devel(head, true), "devel-"+head[:12]+"+dirty"; got != want {
		t.Errorf("devel = %q, want %q", got, want)
	}
}

func TestIsGoRunPath(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"/tmp/go-build1785771704/b001/exe/foldcorpus", true},
		{"/root/.cache/go-build/85/85c8e19d1b984929478763552733a1e260fa9e95bcea8608eed7923958c5a43e-d/foldcorpus", true},
		{"/usr/local/bin/foldcorpus", false},
		{"/home/u/exe/foldcorpus", false},
		{"/x/85c8e19d1b98-d/foldcorpus", false},
	} {
		if got := isGoRunPath(tt.path); got != tt.want {
			t.Errorf("isGoRunPath(%s) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
