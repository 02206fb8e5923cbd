package emulators

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartFunctionExits: a binary that exits before it listens is an
// error at once (not after the 30 s wait), naming the target.
func TestStartFunctionExits(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "fn")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"no matching function found for $FUNCTION_TARGET\"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	f, err := StartFunction(context.Background(), bin, os.Environ(), "ShardFn", 0, &out)
	if err == nil {
		f.Stop()
		t.Fatal("StartFunction of a binary that exits = nil error")
	}
	if !strings.Contains(err.Error(), "ShardFn") || !strings.Contains(err.Error(), "exited before listening") {
		t.Errorf("StartFunction = %v, want an error naming the target and the early exit", err)
	}
}
