// Package distancesv2 is the contacts-and-distances-v2 document format (MarinFold
// exp34/exp5): a protein's sequence followed by contact and binned distance
// statements in a seeded random order, byte-identical to the reference
// generator (../shared/formats/contacts-and-distances-v2.md).
//
// Generation is deterministic: the document depends only on the structure,
// the entry_id (the seed) and the Options.
package distancesv2

import (
	"fmt"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/needcgo"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Name is the format's registered name.
const Name = "contacts-and-distances-v2"

// Format implements format.Format for contacts-and-distances-v2. It is safe
// for concurrent use: each call takes its scratch space from a pool.
type Format struct {
	opts    Options
	scratch sync.Pool // *worker
}

type worker struct {
	p Protein
	g *Generator
}

var _ format.Format = (*Format)(nil)

// New returns the format with opts (see ParseOptions for defaults).
//
// Byte identity needs the C library's log, sin and cos (pyrandom.ExactLibm):
// in a build without cgo New fails (needcgo.ErrNoCgo) rather than write
// documents that can differ from the reference's in rare cases.
func New(opts Options) (*Format, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if !pyrandom.ExactLibm {
		return nil, needcgo.Refuse(Name)
	}
	f := &Format{opts: opts}
	f.scratch.New = func() any { return &worker{g: NewGenerator(opts)} }
	return f, nil
}

// NewFromOptions builds the format from string knobs (the registry's
// constructor): {"residue_plddt_min": "0"}; absent knobs take defaults.
func NewFromOptions(kv map[string]string) (format.Format, error) {
	o, err := ParseOptions(kv)
	if err != nil {
		return nil, err
	}
	return New(o)
}

// Options returns the format's settings.
func (f *Format) Options() Options { return f.opts }

func (f *Format) Name() string                   { return Name }
func (f *Format) Kind() format.InputKind         { return format.FromStructure }
func (f *Format) RecordColumns() []format.Column { return nil }

// MixClasses names Result.Mix's counts (format.Mixer): the sequence's
// residue tokens, the statements of each kind and the <think> tokens.
func (f *Format) MixClasses() []string {
	return []string{format.MixSequence, format.MixLongRange, format.MixMediumRange,
		format.MixShortRange, format.MixDistance, format.MixThink}
}

// Columns: seq_len, global_plddt, contacts_emitted, distances_emitted,
// num_tokens (0 for filtered rows).
func (f *Format) Columns() []format.Column {
	return []format.Column{
		{Name: "seq_len", Type: format.Int64},
		{Name: "global_plddt", Type: format.Float64},
		{Name: "contacts_emitted", Type: format.Int64},
		{Name: "distances_emitted", Type: format.Int64},
		{Name: "num_tokens", Type: format.Int64},
	}
}

// Generate writes in's document. The seed is in.EntryID, or, when empty,
// the entry_id derived from the structure's block name. Structures without
// models are permanent errors; no polymer chain, more than one (when
// require_single_chain is on), fewer than 2 residues and no room in the
// context are filter outcomes.
func (f *Format) Generate(in format.Input) (format.Result, error) {
	w := f.scratch.Get().(*worker)
	defer f.scratch.Put(w)
	res, _, err := f.generate(w, in.Structure, in.EntryID, true)
	return res, err
}

// GenerateBytes is Generate for callers that want the document bytes
// without a string copy: doc aliases scratch memory and is valid only until
// fn returns. fn is not called on error.
func (f *Format) GenerateBytes(s *structure.Structure, entryID string, fn func(res format.Result, doc Doc)) error {
	w := f.scratch.Get().(*worker)
	defer f.scratch.Put(w)
	res, doc, err := f.generate(w, s, entryID, false)
	if err == nil {
		fn(res, doc)
	}
	return err
}

func (f *Format) generate(w *worker, s *structure.Structure, entryID string, copyDoc bool) (format.Result, Doc, error) {
	if s == nil {
		return format.Result{}, Doc{}, fmt.Errorf("%s: no structure", Name)
	}
	if entryID == "" {
		entryID = EntryID(s.Name, "")
	}
	filtered, err := w.p.adapt(s, f.opts.RequireSingleChain)
	if err != nil {
		return format.Result{}, Doc{}, fmt.Errorf("%s(%s): %w", Name, entryID, err)
	}
	if filtered != "" {
		return format.Result{Filtered: filtered, Values: []any{int64(0), 0.0, int64(0), int64(0), int64(0)}},
			Doc{Filtered: filtered}, nil
	}
	d := w.g.Generate(&w.p, entryID)
	res := format.Result{
		Filtered: d.Filtered,
		Values: []any{int64(len(w.p.Res)), w.p.GlobalPLDDT, int64(d.ContactsEmitted),
			int64(d.DistancesEmitted), int64(d.NumTokens)},
	}
	if d.Filtered == "" {
		res.Mix = []int64{int64(len(w.p.Res)), int64(d.Statements[kindLong]), int64(d.Statements[kindMedium]),
			int64(d.Statements[kindShort]), int64(d.Statements[kindDistance]), int64(d.Think)}
	}
	if copyDoc && d.Filtered == "" {
		res.Document = string(d.Document)
	}
	return res, d, nil
}
