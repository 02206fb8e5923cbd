package format

import (
	"context"
	"errors"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/blob"
)

// Env is what a format constructor may read besides its options: the
// process's store, through which an option naming a large input by URI
// (rotlib=gs://BUCKET/PREFIX, a checkpoint) is read. The zero Env has no
// store: such options then accept local paths only.
type Env struct {
	// Store is the store of the run (the planner's, the shard worker's,
	// the CLI's): local paths, file:// and gs:// URIs as it serves them.
	Store blob.Store
}

// NewFunc is a Spec's constructor: it builds the format from the run's
// options (string knobs; an absent knob takes its default), reading any
// large input the options name through env.Store within ctx.
type NewFunc func(ctx context.Context, env Env, opts map[string]string) (Format, error)

// OptionsOnly is the NewFunc of a format built from its options alone
// (no input read through a store).
func OptionsOnly(newFormat func(opts map[string]string) (Format, error)) NewFunc {
	return func(_ context.Context, _ Env, opts map[string]string) (Format, error) {
		return newFormat(opts)
	}
}

// Spec is everything the format registry knows of one format, in one
// value: its name, what it reads, its options with their docs and
// defaults, and its constructor. A format package exports its Spec; the
// registry lists each Spec once, so adding a format is one package and
// one registration line.
type Spec struct {
	// Name is the format's identifier (`--format`), e.g.
	// "contacts-and-distances-v2"; the Format New returns has this Name.
	Name string
	// Input is what the format reads with its default options
	// (contacts-v1 reads analysis records, or structures with rotlib=).
	Input InputKind
	// Options lists every option key New accepts, with its default and a
	// few words of doc; it returns a fresh slice on each call.
	Options func() []Option
	// New builds the format from the run's options (string knobs; an
	// absent knob takes its default). It may load large inputs (weights,
	// a rotamer library), through env.Store when an option names them by
	// URI, and returns an error naming the bad option or input.
	New NewFunc
}

// Validate reports a Spec the registry cannot hold: no name, no
// constructor or option list, or an option key listed twice.
func (s Spec) Validate() error {
	if s.Name == "" {
		return errors.New("format spec: empty name")
	}
	if s.New == nil || s.Options == nil {
		return fmt.Errorf("format spec %s: New and Options are required", s.Name)
	}
	seen := map[string]bool{}
	for _, o := range s.Options() {
		if o.Key == "" || seen[o.Key] {
			return fmt.Errorf("format spec %s: option key %q empty or listed twice", s.Name, o.Key)
		}
		seen[o.Key] = true
	}
	return nil
}
