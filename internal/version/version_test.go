package version

import (
	"runtime/debug"
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
