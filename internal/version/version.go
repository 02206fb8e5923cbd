// Package version says which build of foldcorpus is running, for
// `foldcorpus version` and the output's accounting metadata.
package version

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// Info is what the build recorded about itself.
type Info struct {
	// Version is the module version: a release tag, or the pseudo-version
	// the go command derives from the VCS (e.g.
	// v0.0.0-20261201131121-57c0bab0e1f2+dirty); "devel" when neither is
	// known (e.g. a source upload without .git, as Cloud Functions builds).
	Version   string
	GoVersion string
	Revision  string // vcs.revision, when stamped
	Time      string // vcs.time, when stamped
	Modified  bool   // vcs.modified: built from a tree with local changes
	CGO       string // CGO_ENABLED of the build
	// FromSource: Revision and Modified were read from the source tree at
	// start (a `go run` binary, which the go command does not stamp).
	FromSource bool
}

// Read returns the running binary's build information. A binary that the
// go command did not stamp with its VCS state (`go run`, which never
// stamps, or a build from a git worktree) but that `go run` built from a
// git checkout is described by that checkout's state at start (see
// fromSourceTree); anything else unstamped is "devel". Computed once.
func Read() Info { return readOnce() }

var readOnce = sync.OnceValue(func() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "devel"}
	}
	in := fromBuildInfo(bi)
	if in.Revision == "" && builtByGoRun() {
		_, file, _, _ := runtime.Caller(0)
		if rev, modified, ok := fromSourceTree(filepath.Join(filepath.Dir(file), "..", "..")); ok {
			in.Revision, in.Modified, in.FromSource = rev, modified, true
			in.Version = devel(rev, modified)
		}
	}
	return in
})

// String is Read().Version.
func String() string { return Read().Version }

func fromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: bi.Main.Version, GoVersion: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		case "CGO_ENABLED":
			in.CGO = s.Value
		}
	}
	if in.Version == "" || in.Version == "(devel)" {
		in.Version = devel(in.Revision, in.Modified)
	}
	return in
}

// devel is the version of an untagged build: devel, devel-REV12 or
// devel-REV12+dirty.
func devel(rev string, modified bool) string {
	v := "devel"
	if rev != "" {
		v += "-" + rev[:min(12, len(rev))]
		if modified {
			v += "+dirty"
		}
	}
	return v
}

// builtByGoRun reports whether this executable is one `go run` built: it
// lives in the go command's temporary work folder (go-build*/bNNN/exe/) or,
// since Go 1.24 caches the executables of `go run`, in the build cache
// (GOCACHE/xx/HASH-d/).
func builtByGoRun() bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	return isGoRunPath(exe)
}

func isGoRunPath(exe string) bool {
	dir := filepath.Base(filepath.Dir(exe))
	if dir == "exe" && strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return true
	}
	hash, ok := strings.CutSuffix(dir, "-d")
	if !ok || len(hash) != 64 {
		return false
	}
	for _, c := range hash {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// fromSourceTree asks git for the commit checked out at dir and whether
// the tree has local changes (what the go command stamps as vcs.revision
// and vcs.modified: any `git status --porcelain` output). `go run` builds
// from that tree just before it starts the binary, so this is the source it
// ran. False when dir is not a git checkout or git is unavailable (2 s
// limit).
func fromSourceTree(dir string) (rev string, modified, ok bool) {
	if !filepath.IsAbs(dir) { // -trimpath: no source location
		return "", false, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false, false
	}
	rev = strings.TrimSpace(string(out))
	st, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain").Output()
	if err != nil {
		return "", false, false
	}
	return rev, len(bytes.TrimSpace(st)) > 0, rev != ""
}
