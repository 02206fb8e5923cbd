package emulatortests

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/buildpack"
)

// buildpackBuild builds the function binary from the files the deployment
// uploads the way Google's Go buildpack does, with the build environment
// of infra/functions.tf (internal/buildpack), in appRoot (an empty
// folder), and returns the binary's path and the package its main imports.
func buildpackBuild(appRoot string) (bin, pkg string, err error) {
	return buildpackBuildWith(appRoot, nil)
}

// buildpackBuildWith is buildpackBuild with some uploaded files' contents
// replaced (by path relative to the repository root).
func buildpackBuildWith(appRoot string, replace map[string]string) (bin, pkg string, err error) {
	r, err := buildpack.Build(context.Background(), buildpack.Options{Repo: repoRoot(), AppRoot: appRoot, Replace: replace})
	return r.Binary, r.Package, err
}

// runWithTimeout runs cmd, killing it after d, and returns its output.
func runWithTimeout(cmd *exec.Cmd, d time.Duration) (string, error) {
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("still running after %s", d)
	}
}
