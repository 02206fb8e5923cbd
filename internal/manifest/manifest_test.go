package manifest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

func TestReadSchemaErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, []byte("this is not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		uri  string
		want error
	}{
		{bad, derrors.ErrPermanent},
		{filepath.Join(dir, "none.parquet"), derrors.ErrNotFound},
	} {
		_, err := manifest.ReadSchema(context.Background(), localblob.Store{}, tc.uri)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.uri) {
			t.Errorf("ReadSchema(%s) = %v, want %v naming the file", tc.uri, err, tc.want)
		}
	}
}

func TestReadShardRowGroups(t *testing.T) {
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "n", Type: format.Int64, Nullable: true}, {Name: "big", Type: format.String}}
	var rows [][]any
	for i := 0; i < 10; i++ {
		var n any
		if i%3 != 0 {
			n = int64(i)
		}
		rows = append(rows, []any{fmt.Sprint("E", i), n, strings.Repeat("x", 10000)})
	}
	data, err := manifest.Encode(cols, rows, 4) // row groups: 4, 4, 2
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "m.parquet")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := manifest.ReadSchema(ctx, localblob.Store{}, p)
	if err != nil || fmt.Sprint(s.RowGroups) != "[4 4 2]" || s.NumRows != 10 {
		t.Fatalf("ReadSchema = %+v, %v", s, err)
	}
	var got []string
	var first, total []int64
	err = manifest.ReadFile(ctx, localblob.Store{}, p, []int{1, 2}, []string{"n", "entry_id"}, func(r *manifest.Rows) error {
		first, total = append(first, r.First), append(total, r.Total)
		for _, v := range r.Values {
			got = append(got, fmt.Sprint(v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[[4 E4] [5 E5] [<nil> E6] [7 E7] [8 E8] [<nil> E9]]"; fmt.Sprint(got) != want || fmt.Sprint(first) != "[4 8]" || fmt.Sprint(total) != "[6 6]" {
		t.Errorf("ReadShard = %v (first rows %v, totals %v), want %s (first rows [4 8], totals [6 6])", got, first, total, want)
	}
	err = manifest.ReadFile(ctx, localblob.Store{}, p, nil, []string{"entry_id", "nope"}, func(*manifest.Rows) error { return nil })
	if !errors.Is(err, manifest.ErrMissingColumn) {
		t.Errorf("ReadShard of a missing column = %v", err)
	}
}
