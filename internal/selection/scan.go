package selection

import (
	"context"
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// ScanColumns reads every column selection reads from inputs and counts
// their non-null values, doing nothing else: the baseline that Select's time
// is compared with (the cost of reading the manifest's small columns).
// It only reads; retrying is harmless.
func ScanColumns(ctx context.Context, inputs []string, threads int) (n int64, err error) {
	defer derrors.Wrap(&err, "selection.ScanColumns(%d files)", len(inputs))
	db, err := openDB(ctx, Options{Threads: threads}, "")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	cols, _, err := plan(ctx, db, inputs)
	if err != nil {
		return 0, err
	}
	files := make([]string, len(inputs))
	for i, f := range inputs {
		files[i] = quote(f)
	}
	var counts []string
	for _, c := range cols {
		counts = append(counts, "count("+ident(c.name)+")")
	}
	q := fmt.Sprintf("SELECT %s FROM read_parquet([%s])", strings.Join(counts, " + "), strings.Join(files, ", "))
	return count(ctx, db, q)
}
