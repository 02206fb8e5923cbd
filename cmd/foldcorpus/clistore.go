package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blobmux"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// cliStore is the store of `run` and `smoke`: local paths and file:// URIs
// on this machine's disk, gs:// URIs through GCS with the adapter the
// deployed functions use (openStore's client, made at the first gs:// call,
// so a local-only run needs no credentials).
func cliStore() blob.Store {
	return blobmux.Store{Local: localblob.Store{}, GCS: &lazyGCS{}, HF: hf.NewStore(hf.New(hf.OptionsFromEnv(os.Getenv)))}
}

// lazyGCS makes its GCS store on first use.
type lazyGCS struct {
	once sync.Once
	st   blob.Store
	err  error
}

var (
	_ blob.Store            = (*lazyGCS)(nil)
	_ blob.GenerationOpener = (*lazyGCS)(nil)
)

func (l *lazyGCS) get(ctx context.Context) (blob.Store, error) {
	l.once.Do(func() {
		// The client outlives the first call's ctx; the process owns it.
		l.st, _, l.err = openStore(context.WithoutCancel(ctx), gcs.Options{}, "gs://")
	})
	return l.st, l.err
}

func (l *lazyGCS) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	st, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.ReadAll(ctx, uri)
}

func (l *lazyGCS) Open(ctx context.Context, uri string) (blob.Object, error) {
	st, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.Open(ctx, uri)
}

func (l *lazyGCS) Create(ctx context.Context, uri string, data []byte) error {
	st, err := l.get(ctx)
	if err != nil {
		return err
	}
	return st.Create(ctx, uri, data)
}

func (l *lazyGCS) List(ctx context.Context, pattern string) ([]string, error) {
	st, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return st.List(ctx, pattern)
}

func (l *lazyGCS) OpenGeneration(ctx context.Context, uri string, generation int64) (blob.Object, error) {
	st, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	g, ok := st.(blob.GenerationOpener)
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("%s: the store has no object generations (%T)", uri, st))
	}
	return g.OpenGeneration(ctx, uri, generation)
}
