package main

import (
	"os/exec"
	"strings"
	"testing"
)

// harnessPackages are the packages of this module that exist for tests and
// benchmarks (fakes, emulator starters, golden-data readers, the buildpack
// replay, the bench harnesses). The CLI users install links none of them:
// the benchmarks are cmd/foldcorpus-bench.
var harnessPackages = []string{
	"internal/bench",
	"internal/emulators",
	"internal/faultblob",
	"internal/synthmanifest",
	"internal/testcorpus",
	"internal/duckcheck",
	"internal/hf/hubtest",
	"internal/mmcif/gemmitest",
	"internal/bio2token/b2tgolden",
	"internal/buildpack",
	"internal/harness",
}

// fakeImports are outside packages that are fakes or test servers.
// ("testing" itself is linked by apache/thrift, which arrow-go's parquet
// code imports, so it is not in this list.)
var fakeImports = []string{
	"github.com/fsouza/fake-gcs-server",
	"cloud.google.com/go/pubsub/v2/pstest",
	"cloud.google.com/go/pubsub/pstest",
	"net/http/httptest",
}

// TestCLILinksNoHarness: `go list -deps ./cmd/foldcorpus` names no harness
// package of this module (those above, and any with a path element ending
// in "test", such as internal/blob/blobtest), and no fake or test
// server from outside.
func TestCLILinksNoHarness(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 {
		t.Fatalf("go list -deps listed %d packages; want the CLI's whole dependency list", len(deps))
	}
	const mod = "github.com/foldcorpus/foldcorpus/"
	for _, d := range deps {
		if why := harnessWhy(mod, d); why != "" {
			t.Errorf("the CLI links %s (%s); benchmarks and fakes belong in cmd/foldcorpus-bench or in tests (`go mod why -m` or `go list -deps -f '{{.ImportPath}} {{.Imports}}'` shows who imports it)", d, why)
		}
	}
}

// harnessWhy says why import path d is a harness package, or "" when it is
// not one.
func harnessWhy(mod, d string) string {
	if rel, ok := strings.CutPrefix(d, mod); ok {
		for _, h := range harnessPackages {
			if rel == h || strings.HasPrefix(rel, h+"/") {
				return "a harness package of this module"
			}
		}
		for _, elem := range strings.Split(rel, "/") {
			if strings.HasSuffix(elem, "test") {
				return "a test helper package of this module"
			}
		}
		return ""
	}
	for _, f := range fakeImports {
		if d == f || strings.HasPrefix(d, f+"/") {
			return "a fake or test server"
		}
	}
	return ""
}

// TestHarnessWhy: the check knows a harness package when it sees one.
func TestHarnessWhy(t *testing.T) {
	const mod = "github.com/foldcorpus/foldcorpus/"
	for _, c := range []struct {
		path    string
		harness bool
	}{
		{mod + "internal/bench", true},
		{mod + "internal/emulators", true},
		{mod + "internal/hf/hubtest", true},
		{mod + "internal/newthing/newthingtest", true},
		{mod + "internal/harness/stores", true},
		{"github.com/fsouza/fake-gcs-server/fakestorage", true},
		{"net/http/httptest", true},
		{mod + "internal/benchmarks", false},
		{mod + "internal/localblob", false},
		{mod + "shardfn", false},
		{"testing", false},
		{"net/http", false},
	} {
		if got := harnessWhy(mod, c.path) != ""; got != c.harness {
			t.Errorf("harnessWhy(%s) = %v, want %v", c.path, got, c.harness)
		}
	}
}
