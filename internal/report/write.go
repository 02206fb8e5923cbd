package report

import (
	"bytes"
	"context"
	"fmt"
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
// writes (object stores here have no overwrite). It first looks for an
// earlier report: when one is there with other bytes it writes nothing and
// returns an error wrapping derrors.ErrExists (remove dir/report/ to
// replace it), so a page never mixes two reports. Rerunning it for the same
// output is a no-op; a rerun after an interrupted write completes it.
func (r *Report) WriteStore(ctx context.Context, store blob.Store, dir string) (err error) {
	defer derrors.Wrap(&err, "report.WriteStore(%s)", dir)
	prefix := strings.TrimSuffix(dir, "/") + "/report/"
	existing, err := store.List(ctx, prefix+"*")
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, uri := range existing {
		n := strings.TrimPrefix(uri, prefix)
		data, ok := r.Files[n]
		if !ok {
			continue
		}
		old, err := store.ReadAll(ctx, uri)
		if err != nil {
			return err
		}
		if !bytes.Equal(old, data) {
			return fmt.Errorf("%w: %s holds an earlier report (%s differs); remove %s to replace it", derrors.ErrExists, prefix, n, prefix)
		}
		have[n] = true
	}
	for _, n := range r.names() {
		if have[n] {
			continue
		}
		if err := store.Create(ctx, prefix+n, r.Files[n]); err != nil {
			return err
		}
	}
	return nil
}

// IndexURI is where WriteStore puts the page.
func IndexURI(dir string) string { return strings.TrimSuffix(dir, "/") + "/report/index.html" }
