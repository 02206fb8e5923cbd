package localblob

import (
	"context"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// ReadMappedURI is ReadMapped for a path or file:// URI (Path): fn gets the
// file's whole content, mapped when it is large, read into buf otherwise,
// under ReadMapped's contract. An error opening or reading the file is
// classified as ReadAll's (derrors.ErrNotFound for a missing file) and
// names the URI; fn's error is returned as it is.
func (Store) ReadMappedURI(ctx context.Context, uri string, buf []byte, fn func(data []byte) error) ([]byte, error) {
	p, err := ctxPath(ctx, uri)
	if err != nil {
		return buf[:0], err
	}
	called := false
	buf, err = ReadMapped(p, buf, func(data []byte) error {
		called = true
		return fn(data)
	})
	if err != nil && !called {
		derrors.Wrap(&err, "localblob.ReadAll(%s)", uri)
		return buf, classify(err)
	}
	return buf, err
}
