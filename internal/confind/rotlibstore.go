package confind

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
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
//
// Where uri/rotlib.fcbin (CompactName) exists it is read instead of the
// texts, streamed as they are; each text present beside it must have the
// size it records (its sha256 is not verified through a store, which would
// read the texts the compact file is there to spare, except for a text the
// store can only read whole; LoadLibrary verifies both). A stale, corrupt,
// truncated or other-version compact file is an error naming it, never a
// fall back to the texts.
func LoadLibraryFrom(ctx context.Context, store blob.Store, uri string) (*Library, error) {
	eblURI, beblURI := LibraryURIs(uri)
	if lib, err := loadCompactFrom(ctx, store, uri, eblURI, beblURI); lib != nil || err != nil {
		return lib, err
	}
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

// CompactURI is the compact form's object of the library at uri.
func CompactURI(uri string) string { return strings.TrimRight(uri, "/") + "/" + CompactName }

// loadCompactFrom reads uri/rotlib.fcbin through store, or returns nil,
// nil when there is none.
func loadCompactFrom(ctx context.Context, store blob.Store, uri, eblURI, beblURI string) (*Library, error) {
	cURI := CompactURI(uri)
	c, err := openObject(ctx, store, cURI)
	if errors.Is(err, derrors.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, readError(ctx, cURI, err)
	}
	defer c.close()
	lib, h, err := readCompact(c, cURI, c.size)
	if err != nil {
		if c.err != nil {
			return nil, readError(ctx, cURI, c.err)
		}
		if !errors.Is(err, ErrLibrary) {
			err = readError(ctx, cURI, err)
		}
		return nil, err
	}
	for _, t := range []struct {
		uri string
		sum TextSum
	}{{eblURI, h.ebl}, {beblURI, h.bebl}} {
		o, err := store.Open(ctx, t.uri)
		if errors.Is(err, derrors.ErrNotFound) {
			continue
		}
		if err != nil {
			// a store that cannot open it for range reads: read it
			// whole, and check its sha256 too
			b, err := store.ReadAll(ctx, t.uri)
			if errors.Is(err, derrors.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, readError(ctx, t.uri, err)
			}
			h := &countHash{Hash: sha256.New()}
			h.Write(b)
			if got := h.sum(); got != t.sum {
				return nil, staleError(cURI, t.uri, fmt.Sprintf("%d bytes of sha256 %x, it records %d bytes of %x", got.Size, got.SHA256, t.sum.Size, t.sum.SHA256))
			}
			continue
		}
		size := o.Size()
		o.Close()
		if size != t.sum.Size {
			return nil, staleError(cURI, t.uri, fmt.Sprintf("%d bytes, it records %d", size, t.sum.Size))
		}
	}
	lib.Dir = uri
	return lib, nil
}

// text is one library object as a stream; it keeps the first read error
// (other than io.EOF), which the parse reports as a malformed library.
type text struct {
	uri   string
	size  int64 // -1 when read whole (the size a store reports may be a gzip's)
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
	t, err := openObject(ctx, store, uri)
	if err != nil {
		return nil, readError(ctx, uri, err)
	}
	return t, nil
}

// openObject is openText with the store's error as it is.
func openObject(ctx context.Context, store blob.Store, uri string) (*text, error) {
	if o, err := store.Open(ctx, uri); err == nil {
		return &text{uri: uri, size: o.Size(), r: bufio.NewReaderSize(io.NewSectionReader(o, 0, o.Size()), 8<<20), close: o.Close}, nil
	}
	b, err := store.ReadAll(ctx, uri)
	if err != nil {
		return nil, err
	}
	return &text{uri: uri, size: int64(len(b)), r: bytes.NewReader(b), close: func() error { return nil }}, nil
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
	if blob.Scheme(rotlib) == "" {
		return Shared(rotlib)
	}
	if store == nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %s is a URI, and no store was given to read it", ErrLibrary, rotlib))
	}
	return SharedFrom(ctx, store, rotlib)
}
