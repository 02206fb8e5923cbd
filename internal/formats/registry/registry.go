// Package registry is the format registry: it maps format names to their
// format.Spec (input kind, options with docs and defaults, constructor), so
// the CLI, the planner and the shard workers resolve a run's format in one
// place. Adding a format is its own package exporting a Spec and one line
// in builtin.
package registry

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/fromstructure"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordinatesv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/cropsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/pdbscan"
)

// Default is the format a run without --format (or a run spec without
// "format") uses.
const Default = distancesv2.Name

// builtin lists the formats every binary knows: one line per format.
func builtin() []format.Spec {
	return []format.Spec{
		distancesv2.Spec(),
		fromstructure.Spec(), // contacts-v1: records, or structures with rotlib=
		bio2tokenv2.Spec(),
		coordinatesv1.Kind.Spec(),
		cropsv1.Kind.Spec(),
		pdbscan.Spec(), // the PDB header scan as a run (exp222's entries table)
	}
}

// Registry maps format names to their Specs. The composition roots (the
// CLI, the Cloud Functions, the local runner's caller) build one with
// Builtin, and add to it (Register) what they link besides; the planner
// and the shard worker take a constructor from it (Deps.NewFormat), so
// that they link no format themselves. Safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	specs map[string]format.Spec
}

// Builtin returns a new registry of the formats every binary knows
// (builtin). A malformed or duplicate builtin Spec is a programming error
// and panics (every test builds one).
func Builtin() *Registry {
	r := &Registry{specs: map[string]format.Spec{}}
	for _, s := range builtin() {
		if err := r.Register(s); err != nil {
			panic(err)
		}
	}
	return r
}

// Register adds a format. It returns an error, and registers nothing,
// when the Spec is invalid (format.Spec.Validate) or its name is taken.
func (r *Registry) Register(s format.Spec) error {
	if err := s.Validate(); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.specs[s.Name]; ok {
		return fmt.Errorf("format %q is already registered", s.Name)
	}
	r.specs[s.Name] = s
	return nil
}

// Unregister removes a format (a test's throwaway format); unknown names
// are ignored.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.specs, name)
}

// lookup returns the named format's Spec, or an error listing the known
// names.
func (r *Registry) lookup(name string) (format.Spec, error) {
	r.mu.RLock()
	s, ok := r.specs[name]
	r.mu.RUnlock()
	if !ok {
		return format.Spec{}, fmt.Errorf("unknown format %q (known: %v)", name, r.Names())
	}
	return s, nil
}

// New returns the named format configured by opts, with no store: the
// options name local paths only (NewIn).
func (r *Registry) New(name string, opts map[string]string) (format.Format, error) {
	return r.NewIn(context.Background(), format.Env{}, name, opts)
}

// NewIn returns the named format configured by opts; the inputs the
// options name by URI (rotlib=gs://...) are read through env.Store.
func (r *Registry) NewIn(ctx context.Context, env format.Env, name string, opts map[string]string) (format.Format, error) {
	s, err := r.lookup(name)
	if err != nil {
		return nil, err
	}
	return s.New(ctx, env, opts)
}

// Constructor is NewIn over env, in the shape the planner's and the shard
// worker's Deps.NewFormat take.
func (r *Registry) Constructor(ctx context.Context, env format.Env) func(name string, opts map[string]string) (format.Format, error) {
	return func(name string, opts map[string]string) (format.Format, error) {
		return r.NewIn(ctx, env, name, opts)
	}
}

// Names lists the known formats, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.specs))
	for n := range r.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
