package report

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

func (r *Report) names() []string {
	names := make([]string, 0, len(r.Files))
	for n := range r.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// WriteDir writes the report's files into the local folder dir/report/,
// replacing an earlier report: each file is written to a temporary name and
// renamed, so a reader never sees a partial file. Rerunning it rewrites the
// same bytes for the same output. It returns the path of index.html.
func (r *Report) WriteDir(ctx context.Context, dir string) (index string, err error) {
	defer derrors.Wrap(&err, "report.WriteDir(%s)", dir)
	out := filepath.Join(dir, "report")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	for _, n := range r.names() {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		tmp, err := os.CreateTemp(out, "."+n+".tmp*")
		if err != nil {
			return "", err
		}
		werr := tmp.Chmod(0o644) // a page to read and serve, not a private file
		if werr == nil {
			_, werr = tmp.Write(r.Files[n])
		}
		cerr := tmp.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Rename(tmp.Name(), filepath.Join(out, n))
		}
		if werr != nil {
			os.Remove(tmp.Name())
			return "", werr
		}
	}
	return filepath.Join(out, "index.html"), nil
}

// WriteStore writes the report's files under dir/report/ with create-only
// writes. A rerun finds them there and fails with derrors.ErrExists unless
// the bytes are identical (then it is a no-op for that file).
func (r *Report) WriteStore(ctx context.Context, store blob.Store, dir string) (err error) {
	defer derrors.Wrap(&err, "report.WriteStore(%s)", dir)
	for _, n := range r.names() {
		uri := strings.TrimSuffix(dir, "/") + "/report/" + n
		err := store.Create(ctx, uri, r.Files[n])
		if errors.Is(err, derrors.ErrExists) {
			old, rerr := store.ReadAll(ctx, uri)
			if rerr == nil && bytes.Equal(old, r.Files[n]) {
				continue
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// IndexURI is where WriteStore puts the page.
func IndexURI(dir string) string { return strings.TrimSuffix(dir, "/") + "/report/index.html" }
