package confind

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// LibraryURIs are the two objects of the library at uri, a folder named
// as the store names objects (a local path, file://DIR or
// gs://BUCKET/PREFIX): uri/EBL.out and uri/BEBL.out.
func LibraryURIs(uri string) (ebl, bebl string) {
	base := strings.TrimRight(uri, "/")
	return base + "/EBL.out", base + "/BEBL.out"
}

// LoadLibraryFrom reads the library at uri (LibraryURIs) through store.
// Each object is parsed as it is read, through its random-access view
// (Store.Open, 8 MiB reads), so that its text is never held whole beside
// the parsed library (a production-size EBL.out is ~107 MB); an object
// the store cannot open so (a gzip-encoded GCS object) is read whole to
// EOF instead. A missing object or a malformed line is an error wrapping
// ErrLibrary and derrors.ErrPermanent naming the object (and the line); a
// transient store error, at the open or in the middle of a read, stays
// transient (derrors.ErrTransient), so the caller may retry.
func LoadLibraryFrom(ctx context.Context, store blob.Store, uri string) (*Library, error) {
	eblURI, beblURI := LibraryURIs(uri)
	ebl, err := openText(ctx, store, eblURI)
	if err != nil {
		return nil, err
	}
	defer ebl.close()
	bebl, err := openText(ctx, store, beblURI)
	if err != nil {
		return nil, err
	}
	defer bebl.close()
	lib, err := ReadLibrary(ebl, eblURI, bebl, beblURI)
	for _, t := range []*text{ebl, bebl} {
		if err != nil && t.err != nil {
			return nil, readError(ctx, t.uri, t.err)
		}
	}
	if lib != nil {
		lib.Dir = uri
	}
	return lib, err
}

// text is one library object as a stream; it keeps the first read error
// (other than io.EOF), which the parse reports as a malformed library.
type text struct {
	uri   string
	r     io.Reader
	close func() error
	err   error
}

func (t *text) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF && t.err == nil {
		t.err = err
	}
	return n, err
}

func openText(ctx context.Context, store blob.Store, uri string) (*text, error) {
	if o, err := store.Open(ctx, uri); err == nil {
		return &text{uri: uri, r: bufio.NewReaderSize(io.NewSectionReader(o, 0, o.Size()), 8<<20), close: o.Close}, nil
	}
	b, err := store.ReadAll(ctx, uri)
	if err != nil {
		return nil, readError(ctx, uri, err)
	}
	return &text{uri: uri, r: bytes.NewReader(b), close: func() error { return nil }}, nil
}

// readError classifies a failed read of the object uri: transient stays
// transient (so is a cancelled ctx); anything else is a bad library.
func readError(ctx context.Context, uri string, err error) error {
	if errors.Is(err, derrors.ErrTransient) || ctx.Err() != nil {
		return fmt.Errorf("reading rotamer library %s: %w", uri, err)
	}
	return derrors.Permanent(fmt.Errorf("%w: %s: %v", ErrLibrary, uri, err))
}

var sharedFrom struct {
	sync.Mutex
	libs map[string]*storeLib
}

type storeLib struct {
	sync.Mutex
	done bool
	lib  *Library
	err  error
}

// SharedFrom is LoadLibraryFrom once per process and uri: every caller
// with the same uri gets the same *Library, or the same permanent error
// (the library is permanent input). A transient failure is not kept: the
// next call tries again. Concurrent first callers wait for one load. The
// store is the first caller's; the uri names the objects.
func SharedFrom(ctx context.Context, store blob.Store, uri string) (*Library, error) {
	sharedFrom.Lock()
	if sharedFrom.libs == nil {
		sharedFrom.libs = map[string]*storeLib{}
	}
	s := sharedFrom.libs[uri]
	if s == nil {
		s = &storeLib{}
		sharedFrom.libs[uri] = s
	}
	sharedFrom.Unlock()
	s.Lock()
	defer s.Unlock()
	if s.done {
		return s.lib, s.err
	}
	lib, err := LoadLibraryFrom(ctx, store, uri)
	if err != nil && !errors.Is(err, derrors.ErrPermanent) {
		return nil, err
	}
	s.done, s.lib, s.err = true, lib, err
	return lib, err
}

// SharedAt is the library a run option names (rotlib=): a local folder,
// loaded once per process (Shared), or a URI (gs://BUCKET/PREFIX,
// file://DIR) read through store, once per process (SharedFrom). A URI
// with a nil store is a permanent error saying so: the caller has no way
// to read it.
func SharedAt(ctx context.Context, store blob.Store, rotlib string) (*Library, error) {
	if !strings.Contains(rotlib, "://") {
		return Shared(rotlib)
	}
	if store == nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %s is a URI, and no store was given to read it", ErrLibrary, rotlib))
	}
	return SharedFrom(ctx, store, rotlib)
}
