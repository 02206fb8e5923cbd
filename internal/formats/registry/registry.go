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
	"github.com/foldcorpus/foldcorpus/internal/formats/cadv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/ccoordv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/fromstructure"
	"github.com/foldcorpus/foldcorpus/internal/formats/cropsv1"
)

// Default is the format a run without --format (or a run spec without
// "format") uses.
const Default = cadv2.Name

// builtin lists the formats every binary knows: one line per format.
func builtin() []format.Spec {
	return []format.Spec{
		cadv2.Spec(),
		fromstructure.Spec(), // contacts-v1: records, or structures with rotlib=
		bio2tokenv2.Spec(),
		ccoordv1.Spec(),
		cropsv1.Spec(),
	}
}

// registry holds the registered formats, the builtin ones from the start
// (a package variable, not init(): internal packages have no init).
var registry = newRegistry(builtin())

type specs struct {
	sync.RWMutex
	specs map[string]format.Spec
}

// newRegistry indexes list; a malformed or duplicate builtin Spec is a
// programming error and panics when the package loads (every test does).
func newRegistry(list []format.Spec) *specs {
	r := &specs{specs: map[string]format.Spec{}}
	for _, s := range list {
		if err := r.register(s); err != nil {
			panic(err)
		}
	}
	return r
}

// Register adds a format to the registry. It returns an error, and
// registers nothing, when the Spec is invalid (format.Spec.Validate) or
// its name is taken. Safe for concurrent use; a format registered after
// a run started is not seen by that run's earlier lookups.
func Register(s format.Spec) error { return registry.register(s) }

func (r *specs) register(s format.Spec) error {
	if err := s.Validate(); err != nil {
		return err
	}
	r.Lock()
	defer r.Unlock()
	if _, ok := r.specs[s.Name]; ok {
		return fmt.Errorf("format %q is already registered", s.Name)
	}
	r.specs[s.Name] = s
	return nil
}

// Unregister removes a format (a test's throwaway format); unknown names
// are ignored. Safe for concurrent use.
func Unregister(name string) {
	registry.Lock()
	defer registry.Unlock()
	delete(registry.specs, name)
}

// lookup returns the named format's Spec, or an error listing the known
// names.
func lookup(name string) (format.Spec, error) {
	registry.RLock()
	s, ok := registry.specs[name]
	registry.RUnlock()
	if !ok {
		return format.Spec{}, fmt.Errorf("unknown format %q (known: %v)", name, Names())
	}
	return s, nil
}

// New returns the named format configured by opts, with no store: the
// options name local paths only (NewIn).
func New(name string, opts map[string]string) (format.Format, error) {
	return NewIn(context.Background(), format.Env{}, name, opts)
}

// NewIn returns the named format configured by opts; the inputs the
// options name by URI (rotlib=gs://...) are read through env.Store.
func NewIn(ctx context.Context, env format.Env, name string, opts map[string]string) (format.Format, error) {
	s, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return s.New(ctx, env, opts)
}

// Names lists the known formats, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.specs))
	for n := range registry.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
