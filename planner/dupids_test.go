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

// writeIDs writes a manifest of the given entry ids (string or int64), one
// row group of 2 rows at a time, with a gcs_uri column.
func writeIDs(t *testing.T, path string, typ format.ColumnType, ids ...any) {
	t.Helper()
	cols := []format.Column{{Name: "entry_id", Type: typ}, {Name: "gcs_uri", Type: format.String}}
	var rows [][]any
	for _, id := range ids {
		rows = append(rows, []any{id, "file:///x.cif"})
	}
	data, err := manifest.Encode(cols, rows, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDuplicateIDs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		typ   format.ColumnType
		files [][]any
		allow bool
		want  []string // in the error, in order; nil: no error
		count int
	}{
		{name: "unique", typ: format.String, files: [][]any{{"a", "b", "c"}, {"d", "e"}}},
		{name: "across files", typ: format.String, files: [][]any{{"a", "b", "c", "d"}, {"e", "c"}},
			want: []string{`entry_id "c": `, "m0.parquet row 2 and ", "m1.parquet row 1"}, count: 1},
		{name: "within a file, later row group", typ: format.String, files: [][]any{{"a", "b", "x", "y", "b"}},
			want: []string{`entry_id "b": `, "m0.parquet row 1 and ", "m0.parquet row 4"}, count: 1},
		{name: "int ids, two duplicates", typ: format.Int64, files: [][]any{{int64(7), int64(8)}, {int64(8), int64(7), int64(8)}},
			want: []string{`entry_id "8": `, "m0.parquet row 1 and ", "m1.parquet row 0", `entry_id "7": `, "m0.parquet row 0 and ", "m1.parquet row 1"}, count: 2},
		{name: "allowed", typ: format.String, files: [][]any{{"a", "b"}, {"b", "a"}}, allow: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, ids := range tc.files {
				writeIDs(t, filepath.Join(dir, "m"+string(rune('0'+i))+".parquet"), tc.typ, ids...)
			}
			spec := planner.Spec{Manifest: filepath.Join(dir, "*.parquet"), Format: "fake", Output: filepath.Join(dir, "out"), AllowDuplicateIDs: tc.allow}
			_, err := planner.Prepare(context.Background(), planner.Deps{Store: localblob.Store{}, NewFormat: newFake}, spec)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Prepare = %v, want no error", err)
				}
				return
			}
			var de *planner.DuplicateError
			if !errors.As(err, &de) || !errors.Is(err, planner.ErrDuplicateID) || !errors.Is(err, derrors.ErrPermanent) {
				t.Fatalf("Prepare = %v, want a permanent *DuplicateError", err)
			}
			if de.Count != tc.count {
				t.Errorf("Count = %d, want %d", de.Count, tc.count)
			}
			msg, at := err.Error(), 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q: want %q after offset %d", msg, w, at)
				}
				at += i + len(w)
			}
			if !strings.Contains(msg, "--allow-duplicate-ids") {
				t.Errorf("error %q does not say how to opt in", msg)
			}
		})
	}
}
