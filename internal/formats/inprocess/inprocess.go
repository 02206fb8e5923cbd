// Package inprocess resolves formats as the registry does, with the
// bio2token-v2 encoder (bio2token/neural: GoMLX, and gopickle for the
// checkpoint) running in this process. The processes that generate
// bio2token documents themselves use it: the CLI and the local runner.
// The Cloud Functions use the registry alone, which links no encoder (they
// hand neural shards to the accelerator job). Named "inprocess", not
// "inline": inline means the manifest's structure text (--cif-text-column).
package inprocess

import (
	"context"

	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/registry"
)

// New returns the named builtin format configured by opts
// (registry.Builtin), with bio2token-v2's encoder opened by OpenEncoder.
func New(name string, opts map[string]string) (format.Format, error) {
	return NewIn(context.Background(), registry.Builtin(), format.Env{}, name, opts)
}

// NewIn returns the named format of reg configured by opts, with the
// inputs the options name by URI read through env.Store
// (registry.Registry.NewIn), and bio2token-v2's encoder in this process.
func NewIn(ctx context.Context, reg *registry.Registry, env format.Env, name string, opts map[string]string) (format.Format, error) {
	if name == fb2t.Name {
		return fb2t.Constructor(OpenEncoder)(opts)
	}
	return reg.NewIn(ctx, env, name, opts)
}

// OpenEncoder loads o's weights (a checkpoint file or generated:SEED) and
// starts the encoder on o's backend.
func OpenEncoder(o fb2t.Options) (fb2t.Encoder, error) {
	e, err := neural.Open(o.Weights, o.Backend)
	if err != nil {
		return nil, err
	}
	return e, nil
}
