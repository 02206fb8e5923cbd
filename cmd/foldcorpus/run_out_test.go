package main

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRunOutScheme: --out is a folder (a path or file:// URI) or gs://;
// any other scheme is refused before anything is read or written, naming
// what is wanted.
func TestRunOutScheme(t *testing.T) {
	for _, out := range []string{"hf://datasets/o/n", "s3://bucket/prefix"} {
		err := runRun(context.Background(), []string{"--out", out, "--manifest", "m.parquet"})
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || !strings.Contains(err.Error(), "want a folder or gs://BUCKET/PREFIX") {
			t.Errorf("run --out %s: err = %v, want exit 2 naming the kinds of output", out, err)
		}
	}
}
