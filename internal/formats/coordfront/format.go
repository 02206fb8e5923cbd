package coordfront

import (
	"context"
	"fmt"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Kind is what a coordinate format adds to the format both share (Format):
// its name, configuration C, options, columns and generator.
type Kind[C any] struct {
	Name string
	// Default is the reference's configuration; Validate checks one.
	Default  func() C
	Validate func(C) error
	// Knobs are the options, pointing into cfg and the rotamer library
	// folder (CommonKnobs and the format's own).
	Knobs func(cfg *C, rotlib *string) []Knob
	// Columns are the metadata columns cfg writes; MixClasses name
	// Result.Mix's counts (format.Mixer).
	Columns    func(C) []format.Column
	MixClasses []string
	// NewGenerator returns a generator with no memory yet (Format keeps a
	// pool of them).
	NewGenerator func() Generator[C]
}

// Generator writes a format's documents, reusing its memory from one
// document to the next.
type Generator[C any] interface {
	// Write generates the document of st from its analysis a, seeded by
	// the entry id, as the row the format writes; or the reason the
	// reference filters it (ReasonNonFinite: Bad says which atom).
	Write(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg C) (format.Result, string)
	Bad() *BadAtom
}

// Format is a coordinate format (format.Format, format.Mixer): its
// configuration and its analyzer; safe for concurrent use when the
// analyzer is. The document is a pure function of the structure, the
// analysis, the entry id (the seed) and the options.
type Format[C any] struct {
	kind *Kind[C]
	cfg  C
	// Analyze computes each structure's analysis (ConFind's degrees).
	Analyze Analyzer
	// Rotlib is the rotamer library folder the options named.
	Rotlib string
	gens   sync.Pool // Generator[C]
}

// OptionList lists every option with its default, sorted by key.
func (k *Kind[C]) OptionList() []format.Option {
	cfg, rot := k.Default(), ""
	return Options(k.Knobs(&cfg, &rot))
}

// Configure parses run options into a configuration and the rotamer
// library folder (required). Errors wrap derrors.ErrPermanent.
func (k *Kind[C]) Configure(opts map[string]string) (C, string, error) {
	cfg, rot := k.Default(), ""
	if err := Configure(k.Name, k.Knobs(&cfg, &rot), opts, func() error { return k.Validate(cfg) }); err != nil {
		return cfg, "", err
	}
	return cfg, rot, nil
}

// New returns the format with cfg and an analyzer. Byte identity needs the
// C library's log, sin and cos (pyrandom.ExactLibm): without cgo New fails
// (CheckNew).
func (k *Kind[C]) New(cfg C, analyze Analyzer) (*Format[C], error) {
	if err := CheckNew(k.Name, k.Validate(cfg)); err != nil {
		return nil, err
	}
	return &Format[C]{kind: k, cfg: cfg, Analyze: analyze}, nil
}

// NewFromOptions builds the format from run options (the registry's
// constructor): rotlib (required) names ConFind's rotamer library, a
// folder or a URI (gs://BUCKET/PREFIX) read through env.Store, loaded once
// per process and shared; every other option takes the reference's
// default when absent (OptionList).
func (k *Kind[C]) NewFromOptions(ctx context.Context, env format.Env, opts map[string]string) (format.Format, error) {
	cfg, rotlib, err := k.Configure(opts)
	if err != nil {
		return nil, err
	}
	an, err := ConFind(ctx, env.Store, rotlib)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.Name, err)
	}
	f, err := k.New(cfg, an)
	if err != nil {
		return nil, err
	}
	f.Rotlib = rotlib
	return f, nil
}

// Spec registers the format (format.Spec): the registry's one line for it.
func (k *Kind[C]) Spec() format.Spec {
	return format.Spec{Name: k.Name, Input: format.FromStructure, Options: k.OptionList, New: k.NewFromOptions}
}

// Config returns the format's configuration.
func (f *Format[C]) Config() C { return f.cfg }

func (f *Format[C]) Name() string                   { return f.kind.Name }
func (f *Format[C]) Kind() format.InputKind         { return format.FromStructure }
func (f *Format[C]) RecordColumns() []format.Column { return nil }
func (f *Format[C]) Columns() []format.Column       { return f.kind.Columns(f.cfg) }
func (f *Format[C]) MixClasses() []string           { return f.kind.MixClasses }

// Generate writes in's document. The seed is in.EntryID, or, when empty,
// the entry id of the structure's block name. An analysis failure is an
// error (permanent unless the analyzer says transient), as is a
// non-finite coordinate; the reference's skips and its caught analysis
// errors are filter outcomes.
func (f *Format[C]) Generate(in format.Input) (format.Result, error) {
	a, id, filtered, err := AnalyzeInput(f.Analyze, f.kind.Name, in)
	if err != nil || filtered != "" {
		return format.Result{Filtered: filtered}, err
	}
	g, _ := f.gens.Get().(Generator[C])
	if g == nil {
		g = f.kind.NewGenerator()
	}
	defer f.gens.Put(g)
	res, filtered := g.Write(in.Structure, a, id, f.cfg)
	if filtered == ReasonNonFinite {
		return format.Result{}, NonFinite(f.kind.Name, id, g.Bad())
	}
	if filtered != "" {
		return format.Result{Filtered: filtered}, nil
	}
	return res, nil
}
