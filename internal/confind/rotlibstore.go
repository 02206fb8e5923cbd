package confind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// LoadLibraryFrom reads the library at uri (LibraryURIs) through store,
// whole objects to EOF. A missing object or a malformed line is an error
// wrapping ErrLibrary and derrors.ErrPermanent naming the object (and the
// line); a transient store error stays transient (derrors.ErrTransient),
// so the caller may retry.
func LoadLibraryFrom(ctx context.Context, store blob.Store, uri string) (*Library, error) {
	eblURI, beblURI := LibraryURIs(uri)
	read := func(u string) ([]byte, error) {
		b, err := store.ReadAll(ctx, u)
		switch {
		case err == nil:
			return b, nil
		case errors.Is(err, derrors.ErrTransient) || ctx.Err() != nil:
			return nil, fmt.Errorf("reading rotamer library %s: %w", u, err)
		default:
			return nil, derrors.Permanent(fmt.Errorf("%w: %s: %v", ErrLibrary, u, err))
		}
	}
	ebl, err := read(eblURI)
	if err != nil {
		return nil, err
	}
	bebl, err := read(beblURI)
	if err != nil {
		return nil, err
	}
	lib, err := ReadLibrary(bytes.NewReader(ebl), eblURI, bytes.NewReader(bebl), beblURI)
	if lib != nil {
		lib.Dir = uri
	}
	return lib, err
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
