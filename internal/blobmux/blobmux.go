// Package blobmux chooses a blob.Store by URI scheme, as go-cloud's URLMux
// does: a process registers one store (or an opener that makes it on first
// use) per scheme it serves, "gs" for GCS (package internal/gcs), "hf" for
// the Hugging Face Hub (package internal/hf), "file" for this machine's
// files (package internal/localblob, which also serves plain paths), and
// the Mux, itself a blob.Store, sends every call to the store of its URI's
// scheme (blob.Scheme). So one run can read a gs:// manifest and objects
// and write locally, or the other way round; a scheme nobody registered is
// a permanent error naming the schemes the process serves.
package blobmux

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// An Opener makes the store of one scheme. The Mux calls it once, at the
// first call for a URI of that scheme (so that a process that only reads
// local files needs no cloud credentials), with a context that is never
// cancelled (the store outlives the call that made it); its result, store
// or error, is kept for every later call. close, when not nil, releases
// what the store holds (a client); Mux.Close calls it.
type Opener func(ctx context.Context) (st blob.Store, close func() error, err error)

// Mux is a blob.Store that routes each call to the store registered for
// its URI's scheme; a path (no scheme) goes to the "file" store. Register
// every scheme before the first call. Safe for concurrent use when the
// stores are.
type Mux struct {
	mu      sync.Mutex
	schemes map[string]*backend
}

// backend is one scheme's store, made by open at its first use.
type backend struct {
	once  sync.Once
	open  Opener
	st    blob.Store
	close func() error
	err   error
}

var (
	_ blob.Store            = (*Mux)(nil)
	_ blob.GenerationOpener = (*Mux)(nil)
)

// New returns a Mux with no scheme registered.
func New() *Mux { return &Mux{schemes: map[string]*backend{}} }

// Register makes st the store of scheme's URIs ("gs", "hf"; "file" serves
// plain paths too). It panics when scheme is not a lower-case URI scheme or
// is registered already: registering is the program's set-up, not input.
func (m *Mux) Register(scheme string, st blob.Store) {
	m.RegisterOpener(scheme, func(context.Context) (blob.Store, func() error, error) { return st, nil, nil })
}

// RegisterOpener makes open the maker of scheme's store (see Opener); it
// panics as Register does.
func (m *Mux) RegisterOpener(scheme string, open Opener) {
	if scheme == "" || blob.Scheme(scheme+"://") != scheme || open == nil {
		panic(fmt.Sprintf("blobmux: Register(%q): not a lower-case URI scheme, or no store", scheme))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.schemes[scheme]; ok {
		panic(fmt.Sprintf("blobmux: scheme %q registered twice", scheme))
	}
	m.schemes[scheme] = &backend{open: open}
}

// Schemes returns the registered schemes, sorted.
func (m *Mux) Schemes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for s := range m.schemes {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Store returns the store of uri's scheme, making it if it is the first
// use; a scheme that is not registered, or whose opener failed, is an
// error (permanent for the former; the opener's error as it was).
func (m *Mux) Store(ctx context.Context, uri string) (blob.Store, error) {
	scheme := blob.Scheme(uri)
	if scheme == "" {
		scheme = "file"
	}
	m.mu.Lock()
	b, ok := m.schemes[scheme]
	m.mu.Unlock()
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("%s: no store for %s:// URIs here (this process serves %s)", uri, scheme, m.served()))
	}
	b.once.Do(func() {
		b.st, b.close, b.err = b.open(context.WithoutCancel(ctx))
		if b.err != nil {
			b.err = fmt.Errorf("opening the %s:// store: %w", scheme, b.err)
		}
	})
	return b.st, b.err
}

// served names the registered schemes for an error message.
func (m *Mux) served() string {
	var names []string
	for _, s := range m.Schemes() {
		if s == "file" {
			names = append(names, "paths and file://")
		} else {
			names = append(names, s+"://")
		}
	}
	if len(names) == 0 {
		return "no URIs at all"
	}
	return strings.Join(names, ", ")
}

// Close releases what the opened stores hold (see Opener); the Mux must not
// be used afterwards.
func (m *Mux) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for _, b := range m.schemes {
		if b.close != nil {
			errs = append(errs, b.close())
			b.close = nil
		}
	}
	return errors.Join(errs...)
}

// ReadAll is the routed store's ReadAll.
func (m *Mux) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	st, err := m.Store(ctx, uri)
	if err != nil {
		return nil, err
	}
	return st.ReadAll(ctx, uri)
}

// ReadsInPlace reports whether ReadMappedURI reads uri in place: it routes
// to a store that parses objects from their mapping or the caller's buffer
// (the local one), so that a reader of many objects in turn (shardfn's
// rows) reuses its memory and does that read under a CPU slot, not a fetch
// slot. It makes the scheme's store if it is the first use.
func (m *Mux) ReadsInPlace(uri string) bool {
	st, err := m.Store(context.Background(), uri)
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
func (m *Mux) ReadMappedURI(ctx context.Context, uri string, buf []byte, fn func(data []byte) error) ([]byte, error) {
	st, err := m.Store(ctx, uri)
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
func (m *Mux) Open(ctx context.Context, uri string) (blob.Object, error) {
	st, err := m.Store(ctx, uri)
	if err != nil {
		return nil, err
	}
	return st.Open(ctx, uri)
}

// Create is the routed store's Create.
func (m *Mux) Create(ctx context.Context, uri string, data []byte) error {
	st, err := m.Store(ctx, uri)
	if err != nil {
		return err
	}
	return st.Create(ctx, uri, data)
}

// List is the routed store's List.
func (m *Mux) List(ctx context.Context, pattern string) ([]string, error) {
	st, err := m.Store(ctx, pattern)
	if err != nil {
		return nil, err
	}
	return st.List(ctx, pattern)
}

// OpenGeneration is the routed store's OpenGeneration; a store without
// generations gives a permanent error.
func (m *Mux) OpenGeneration(ctx context.Context, uri string, generation int64) (blob.Object, error) {
	st, err := m.Store(ctx, uri)
	if err != nil {
		return nil, err
	}
	g, ok := st.(blob.GenerationOpener)
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("%s: generation %d asked for, but this store has no object generations (%T)", uri, generation, st))
	}
	return g.OpenGeneration(ctx, uri, generation)
}
