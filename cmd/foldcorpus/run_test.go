package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/localrun"
	"github.com/foldcorpus/foldcorpus/internal/report"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// TestRunIncompleteWritesReport: a run whose shard fails (a structure
// object is missing) exits with an error and still writes the report, whose
// failures table names the failed shard's entry.
func TestRunIncompleteWritesReport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	glob, err := synth.WriteSample(ctx, localblob.Store{}, filepath.Join(dir, "sample"), 8, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	cifs, _ := filepath.Glob(filepath.Join(dir, "sample", "cif", "*.cif"))
	if len(cifs) != 8 {
		t.Fatalf("sample wrote %d structures, want 8", len(cifs))
	}
	gone := strings.TrimSuffix(filepath.Base(cifs[0]), ".cif")
	if err := os.Remove(cifs[0]); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	err = runRun(ctx, []string{"--manifest", glob, "--out", out, "--workers", "1"})
	if !errors.Is(err, localrun.ErrIncomplete) {
		t.Fatalf("run = %v, want an error wrapping localrun.ErrIncomplete", err)
	}
	js, err := os.ReadFile(filepath.Join(out, "report", "summary.json"))
	if err != nil {
		t.Fatalf("no report after an incomplete run: %v", err)
	}
	var s report.Summary
	if err := json.Unmarshal(js, &s); err != nil {
		t.Fatal(err)
	}
	a := s.Accounting
	if a.ShardsDone != 1 || a.ShardsFailed != 1 || len(a.Failures) != 1 || a.Failures[0].EntryID != gone {
		t.Errorf("report accounting = %+v, want 1 done, 1 failed with entry %s", a, gone)
	}
	if _, err := os.Stat(filepath.Join(out, "report", "index.html")); err != nil {
		t.Errorf("report index: %v", err)
	}
}
