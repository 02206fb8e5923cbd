package derrors

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

func TestDescribe(t *testing.T) {
	wrapped := func(err error, op string) error { Wrap(&err, "%s", op); return err }
	base := errors.New(`missing required column "gcs_uri"`)
	pathErr := &os.PathError{Op: "mkdir", Path: "/sys/x", Err: fs.ErrPermission}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", base, base.Error()},
		{"op chain and kind", wrapped(wrapped(Permanent(fmt.Errorf("manifest m.parquet: %w", base)), "manifest.ReadSchema(m.parquet)"), "planner.Prepare(*.parquet)"),
			`manifest m.parquet: missing required column "gcs_uri"`},
		{"transient inside a row error", fmt.Errorf("entry A (row 3): fetch: %w", wrapped(Transient(errors.New("503")), "gcs.ReadAll(gs://b/o)")),
			"entry A (row 3): fetch: 503"},
		{"two wrapped errors", fmt.Errorf("%w: %w", ErrNotFound, wrapped(pathErr, "localledger.Open(/sys/x)")),
			"not found: mkdir /sys/x: permission denied"},
		{"sentinel permanent by hand", fmt.Errorf("%w: %w", ErrPermanent, base), base.Error()},
	} {
		if got := Describe(tc.err); got != tc.want {
			t.Errorf("%s: Describe = %q, want %q", tc.name, got, tc.want)
		}
		if tc.err != nil && tc.name == "op chain and kind" && !errors.Is(tc.err, ErrPermanent) {
			t.Errorf("%s: errors.Is(ErrPermanent) lost", tc.name)
		}
	}
	// Error() keeps the operation names and kinds for logs.
	err := wrapped(Permanent(base), "op(x)")
	if want := `op(x): permanent failure: missing required column "gcs_uri"`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}
