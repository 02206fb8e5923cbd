package planner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestPreparePassthrough: the run's passthrough list fixes the projection
// and the output schema, is part of the run's identity (only when named:
// the default set keeps earlier run ids), must be in every file, and the
// plan lists the manifest columns no shard reads or writes.
func TestPreparePassthrough(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "m", "a.parquet"), []format.Column{id, uri, split, other, slen}, 4, 0)
	write(t, filepath.Join(dir, "m", "b.parquet"), []format.Column{id, uri, split, other, tax}, 4, 0)
	deps := planner.Deps{Store: localblob.Store{}, NewFormat: newFake}
	base := planner.Spec{Manifest: filepath.Join(dir, "m", "*.parquet"), Format: "fake", Output: filepath.Join(dir, "out")}
	tests := []struct {
		name        string
		passthrough []string
		wantCols    string // projected columns
		wantDropped string
		wantOpt     string // pipeline.passthrough, "-" when absent
		wantErr     string
	}{
		{name: "default set", wantCols: "[entry_id gcs_uri split]", wantDropped: "[notes seq_len tax_id]", wantOpt: "-"},
		{name: "named", passthrough: []string{"notes", "split"}, wantCols: "[entry_id gcs_uri notes split]", wantDropped: "[seq_len tax_id]", wantOpt: "notes,split"},
		{name: "none", passthrough: []string{}, wantCols: "[entry_id gcs_uri]", wantDropped: "[split notes seq_len tax_id]", wantOpt: ""},
		{name: "not in every file", passthrough: []string{"tax_id"}, wantErr: `a.parquet: missing required column "tax_id"`},
	}
	ids := map[string]string{}
	for _, tt := range tests {
		spec := base
		spec.Passthrough = tt.passthrough
		p, err := planner.Prepare(context.Background(), deps, spec)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: Prepare = %v, want an error saying %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		opt, ok := p.Run.Options["pipeline.passthrough"]
		if !ok {
			opt = "-"
		}
		if got := fmt.Sprint(p.Messages[0].Columns); got != tt.wantCols || fmt.Sprint(p.Dropped) != tt.wantDropped || opt != tt.wantOpt {
			t.Errorf("%s: columns %s, dropped %v, option %q; want %s, %s, %q", tt.name, got, p.Dropped, opt, tt.wantCols, tt.wantDropped, tt.wantOpt)
		}
		if other, dup := ids[p.Run.ID]; dup {
			t.Errorf("%s: same run id as %s", tt.name, other)
		}
		ids[p.Run.ID] = tt.name
	}
}
