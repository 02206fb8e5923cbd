// Package blobmux routes blob.Store calls by URI: gs:// URIs to a GCS store
// (package internal/gcs), hf:// URIs to the Hugging Face Hub (package
// internal/hf), everything else (paths, file:// URIs) to the local one, so one run can read a gs:// manifest and objects and write locally,
// or the other way round.
package blobmux

import (
	"context"
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Store routes by URI: gs:// to GCS, hf:// to HF, the rest to Local. GCS
// and HF may be nil: their URIs are then a permanent error. Safe for
// concurrent use when the stores are.
type Store struct {
	Local blob.Store
	GCS   blob.Store
	HF    blob.Store
}

var (
	_ blob.Store            = Store{}
	_ blob.GenerationOpener = Store{}
)

func (s Store) pick(uri string) (blob.Store, error) {
	if strings.HasPrefix(uri, "hf://") {
		if s.HF == nil {
			return nil, derrors.Permanent(fmt.Errorf("%s: no Hugging Face store configured", uri))
		}
		return s.HF, nil
	}
	if strings.HasPrefix(uri, "gs://") {
		if s.GCS == nil {
			return nil, derrors.Permanent(fmt.Errorf("%s: no GCS store configured", uri))
		}
		return s.GCS, nil
	}
	return s.Local, nil
}

// ReadAll is the routed store's ReadAll.
func (s Store) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	st, err := s.pick(uri)
	if err != nil {
		return nil, err
	}
	return st.ReadAll(ctx, uri)
}

// ReadsInPlace reports whether ReadMappedURI reads uri in place: it routes
// to a store that parses objects from their mapping or the caller's buffer
// (the local one), so that a reader of many objects in turn (shardfn's
// rows) reuses its memory and does that read under a CPU slot, not a fetch
// slot.
func (s Store) ReadsInPlace(uri string) bool {
	st, err := s.pick(uri)
	if err != nil {
		return false
	}
	_, ok := st.(mappedReader)
	return ok
}

// mappedReader is a store that hands an object's bytes to a callback,
// mapped where it can (localblob.Store.ReadMappedURI).
type mappedReader interface {
	ReadMappedURI(ctx context.Context, uri string, buf []byte, fn func(data []byte) error) ([]byte, error)
}

// ReadMappedURI is the routed store's ReadMappedURI when it has one (the
// local store: see localblob.ReadMapped's contract for fn), else fn on
// ReadAll's bytes. An error reading the object is returned without calling
// fn; fn's error is returned as it is.
func (s Store) ReadMappedURI(ctx context.Context, uri string, buf []byte, fn func(data []byte) error) ([]byte, error) {
	st, err := s.pick(uri)
	if err != nil {
		return buf[:0], err
	}
	if r, ok := st.(mappedReader); ok {
		return r.ReadMappedURI(ctx, uri, buf, fn)
	}
	data, err := st.ReadAll(ctx, uri)
	if err != nil {
		return buf[:0], err
	}
	return buf[:0], fn(data)
}

// Open is the routed store's Open.
func (s Store) Open(ctx context.Context, uri string) (blob.Object, error) {
	st, err := s.pick(uri)
	if err != nil {
		return nil, err
	}
	return st.Open(ctx, uri)
}

// Create is the routed store's Create.
func (s Store) Create(ctx context.Context, uri string, data []byte) error {
	st, err := s.pick(uri)
	if err != nil {
		return err
	}
	return st.Create(ctx, uri, data)
}

// List is the routed store's List.
func (s Store) List(ctx context.Context, pattern string) ([]string, error) {
	st, err := s.pick(pattern)
	if err != nil {
		return nil, err
	}
	return st.List(ctx, pattern)
}

// OpenGeneration is the routed store's OpenGeneration; a store without
// generations gives a permanent error.
func (s Store) OpenGeneration(ctx context.Context, uri string, generation int64) (blob.Object, error) {
	st, err := s.pick(uri)
	if err != nil {
		return nil, err
	}
	g, ok := st.(blob.GenerationOpener)
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("%s: generation %d asked for, but this store has no object generations", uri, generation))
	}
	return g.OpenGeneration(ctx, uri, generation)
}
