package blob

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// GenerationOpener is implemented by stores whose objects have generations
// (GCS): each write of an object name makes a new generation, and an old
// generation can be read for as long as it exists.
type GenerationOpener interface {
	// OpenGeneration is Open of one generation of the object. A generation
	// that no longer exists (overwritten or deleted, in a bucket without
	// versioning) gives an error wrapping derrors.ErrNotFound.
	OpenGeneration(ctx context.Context, uri string, generation int64) (Object, error)
}

// Generationed is implemented by Objects that know their generation (GCS
// objects opened by Open report the generation they are pinned to).
type Generationed interface {
	Generation() int64
}

// ObjectGeneration returns o's generation, or 0 when o does not know it
// (local files).
func ObjectGeneration(o Object) int64 {
	if g, ok := o.(Generationed); ok {
		return g.Generation()
	}
	return 0
}

// Pin returns a Store that reads uri at the given generation and passes
// every other call (and every other URI) to s. Open and ReadAll of uri go
// through s's GenerationOpener; when s has none (local files), they fail
// with a permanent error. A generation that no longer exists gives a
// permanent error that also wraps derrors.ErrNotFound and says so. A
// generation of 0 returns s itself. Safe for concurrent use when s is.
func Pin(s Store, uri string, generation int64) Store {
	if generation == 0 {
		return s
	}
	return &pinned{Store: s, uri: uri, gen: generation}
}

type pinned struct {
	Store
	uri string
	gen int64
}

func (p *pinned) Open(ctx context.Context, uri string) (Object, error) {
	if uri != p.uri {
		return p.Store.Open(ctx, uri)
	}
	g, ok := p.Store.(GenerationOpener)
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("%s: generation %d asked for, but this store has no object generations (%T)", uri, p.gen, p.Store))
	}
	o, err := g.OpenGeneration(ctx, uri, p.gen)
	if errors.Is(err, derrors.ErrNotFound) {
		return nil, derrors.Permanent(fmt.Errorf("generation %d of %s no longer exists (the object was overwritten or deleted since it was pinned): %w", p.gen, uri, err))
	}
	return o, err
}

func (p *pinned) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	if uri != p.uri {
		return p.Store.ReadAll(ctx, uri)
	}
	o, err := p.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	defer o.Close()
	data := make([]byte, o.Size())
	if n, err := o.ReadAt(data, 0); err != nil && (err != io.EOF || n != len(data)) {
		return nil, err
	}
	return data, nil
}
