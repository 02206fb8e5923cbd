package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// CLIEnv names the foldcorpus CLI binary that kinds measuring user
// commands (run, doc, inspect, select) run as whole processes.
const CLIEnv = "FOLDCORPUS_CLI"

var cli struct {
	once  sync.Once
	path  string
	err   error
	built string // the temporary folder of a CLI built here
}

// CLI returns the path of the foldcorpus CLI binary the whole-process kinds
// measure: $FOLDCORPUS_CLI when set; else an executable `foldcorpus` beside
// this binary (as `go install` or `go build -o DIR/` of both commands leaves
// them); else one built once per process from the module the working folder
// is in (`go build ./cmd/foldcorpus`, into a temporary folder that
// RemoveBuilt deletes). Safe for concurrent use; the first call decides and
// later calls return its result, error included.
func CLI(ctx context.Context) (string, error) {
	cli.once.Do(func() { cli.path, cli.err = findCLI(ctx) })
	return cli.path, cli.err
}

// RemoveBuilt deletes the CLI that CLI built, if it built one. The bench
// binary calls it before it exits.
func RemoveBuilt() {
	if cli.built != "" {
		os.RemoveAll(cli.built)
	}
}

func findCLI(ctx context.Context) (string, error) {
	if p := os.Getenv(CLIEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", CLIEnv, err)
		}
		return p, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "foldcorpus")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	dir, err := os.MkdirTemp("", "foldcorpus-bench-cli-")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "foldcorpus")
	fmt.Fprintf(os.Stderr, "foldcorpus-bench: building the foldcorpus CLI (go build ./cmd/foldcorpus; set %s to use a built one)\n", CLIEnv)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", p, "github.com/foldcorpus/foldcorpus/cmd/foldcorpus")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("no foldcorpus CLI: %s is unset, there is no foldcorpus beside this binary, and go build ./cmd/foldcorpus from here failed (run from the repository): %w\n%s", CLIEnv, err, out)
	}
	cli.built = dir
	return p, nil
}
