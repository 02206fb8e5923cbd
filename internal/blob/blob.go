// Package blob is the seam to object storage: whole-object reads to EOF,
// range reads for parquet footers, listing, and create-only writes. The local
// implementation serves files and file:// URIs; the Google Cloud one (package
// internal/gcs) serves gs:// URIs; package internal/blobmux chooses among
// the stores a process registers by URI scheme (Scheme).
package blob

import (
	"context"
	"errors"
	"io"
)

// ErrFileChanged is wrapped (naming the object) by a store that hands an
// object's bytes to a callback in place (a local file's mapping) when the
// object lost bytes while the callback read them: it was truncated, or its
// storage failed, under the mapping. What the callback built from those
// bytes may be half-built; reading the object again may succeed.
var ErrFileChanged = errors.New("file truncated or unreadable while mapped")

// Store reads and writes objects named by URI.
//
// Errors are classified with the sentinels of internal/derrors: ErrNotFound
// for a missing object, ErrExists for a create-only write that found the
// object, ErrTransient for retryable failures; everything else is permanent.
type Store interface {
	// ReadAll returns the whole object, read to EOF (never trusting a
	// reported size: gzip-transcoded objects report their compressed size).
	// Idempotent; safe for concurrent use.
	ReadAll(ctx context.Context, uri string) ([]byte, error)
	// Open returns a random-access reader over the object for range reads
	// (parquet footers and column chunks). The caller closes it.
	Open(ctx context.Context, uri string) (Object, error)
	// Create writes data as a new object, create-only and atomic: readers
	// see either nothing or the whole object. If the object already exists
	// it returns an error wrapping derrors.ErrExists and leaves it untouched.
	Create(ctx context.Context, uri string, data []byte) error
	// List returns the URIs matching a glob pattern (path.Match syntax in the
	// last element), sorted.
	List(ctx context.Context, pattern string) ([]string, error)
}

// Object is a random-access view of one object.
type Object interface {
	io.ReaderAt
	io.Closer
	Size() int64
	// BytesRead reports how many bytes were read through ReadAt so far, so
	// callers can show that only a footer was read.
	BytesRead() int64
}
