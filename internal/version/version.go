// Package version says which build of foldcorpus is running, for
// `foldcorpus version` and the output's accounting metadata.
package version

import (
	"runtime/debug"
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
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: "devel"}
	}
	return fromBuildInfo(bi)
}

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
		in.Version = "devel"
		if in.Revision != "" {
			in.Version += "-" + in.Revision[:min(12, len(in.Revision))]
			if in.Modified {
				in.Version += "+dirty"
			}
		}
	}
	return in
}
