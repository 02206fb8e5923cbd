package planner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestNullIDsRefusedAtPlanning: null and empty entry ids are refused by
// Prepare, as duplicates are, naming each row (also with
// AllowDuplicateIDs, which allows duplicates only).
func TestNullIDsRefusedAtPlanning(t *testing.T) {
	for _, allow := range []bool{false, true} {
		dir := t.TempDir()
		data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String, Nullable: true}, {Name: "gcs_uri", Type: format.String}},
			[][]any{{"a", "file:///x.cif"}, {"b", "file:///x.cif"}, {nil, "file:///x.cif"}}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "m0.parquet"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		writeIDs(t, filepath.Join(dir, "m1.parquet"), format.String, "c", "", "d")
		spec := planner.Spec{Manifest: filepath.Join(dir, "*.parquet"), Format: "fake", Output: filepath.Join(dir, "out"), AllowDuplicateIDs: allow}
		_, err = planner.Prepare(context.Background(), planner.Deps{Store: localblob.Store{}, NewFormat: newFake}, spec)
		if !errors.Is(err, planner.ErrNullID) || !errors.Is(err, derrors.ErrPermanent) {
			t.Fatalf("allow duplicates %v: Prepare = %v, want a permanent ErrNullID", allow, err)
		}
		msg := derrors.Describe(err)
		for _, w := range []string{"2 manifest rows", "m0.parquet row 2 (null)", "m1.parquet row 1 (empty)"} {
			if !strings.Contains(msg, w) {
				t.Errorf("allow duplicates %v: error %q does not say %q", allow, msg, w)
			}
		}
	}
}
