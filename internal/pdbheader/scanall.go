package pdbheader

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Options configure ScanAll.
type Options struct {
	// Workers is the number of files read and scanned at once (at least 1).
	Workers int
	// Progress, when set, is called after each file with the number done
	// so far (from the worker goroutines; it must be safe for concurrent
	// use).
	Progress func(done int64)
}

// mappedReader is a store that hands an object's bytes to a callback,
// from a mapping or the caller's buffer (blobmux.Mux, localblob.Store).
type mappedReader interface {
	ReadMappedURI(ctx context.Context, uri string, buf []byte, fn func(data []byte) error) ([]byte, error)
}

// ScanAll reads each URI whole through store (to EOF; gzip detected by
// content) and scans it, Workers at a time, returning the entries in the
// order of uris. A store that reads in place (local files through
// blobmux.Mux or localblob.Store) is read through its mapping or a
// per-worker buffer, and each worker reuses its inflate buffer, so that a
// scan of many files allocates little. A file that cannot be read or
// parsed is an entry with Error set (its URI and the reason), never a
// dropped row; a transient store error (derrors.ErrTransient, after the
// store's own retries) or a cancelled ctx stops the scan and is returned
// instead, so that a network hiccup is not recorded as a bad entry.
// Idempotent: safe to rerun.
func ScanAll(ctx context.Context, store blob.Store, uris []string, opts Options) ([]Entry, error) {
	out := make([]Entry, len(uris))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	mr, mapped := store.(mappedReader)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < max(1, opts.Workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s scanner
			var buf []byte
			for {
				i := int(next.Add(1) - 1)
				if i >= len(uris) || ctx.Err() != nil {
					return
				}
				u := uris[i]
				var err error
				if mapped {
					called := false
					buf, err = mr.ReadMappedURI(ctx, u, buf, func(data []byte) error {
						called = true
						out[i] = s.scan(data, u)
						return nil
					})
					if err != nil && called {
						out[i] = Entry{PDBID: PDBID(u), Path: u}.failed(fmt.Errorf("reading %s: %w", u, err))
						err = nil
					}
				} else {
					var data []byte
					if data, err = store.ReadAll(ctx, u); err == nil {
						out[i] = s.scan(data, u)
					}
				}
				switch {
				case err == nil:
				case errors.Is(err, derrors.ErrTransient) || ctx.Err() != nil:
					cancel(fmt.Errorf("reading %s: %w", u, err))
					return
				default:
					out[i] = Entry{PDBID: PDBID(u), Path: u}.failed(fmt.Errorf("reading %s: %w", u, err))
				}
				if opts.Progress != nil {
					opts.Progress(done.Add(1))
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return out, nil
}
