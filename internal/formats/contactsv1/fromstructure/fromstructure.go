// Package fromstructure is contacts-v1 computed from structures: the
// contact degrees come from ConFind (package confind, MarinFold's
// native-only settings) in the shard, then the document is contacts-v1's
// from that analysis record, as MarinFold's analyze_structure + generate.py.
//
// New dispatches on the rotlib option: with it, the format consumes
// structures (URI or inline mmCIF rows); without it, it is contacts-v1 over
// analysis records (package contactsv1), as before.
package fromstructure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/pdbunits"
	"github.com/foldcorpus/foldcorpus/internal/needcgo"
)

// The designed-in filters of MarinFold's analyze_structure (the reference
// raises and writes no document); contacts-v1's own filters (too_short,
// too_long, ...) apply after them.
const (
	FilterMultiChain = "multi_chain"         // more than one protein chain, max_chains=1
	FilterNoProtein  = "no_protein_residues" // no residue pyconfind keeps
)

// Option names.
const (
	OptRotlib = "rotlib" // folder (or gs://BUCKET/PREFIX) holding EBL.out and BEBL.out
	OptRecord = "record" // "true": write the analysis records, not documents
	// The complexes' options (exp222): what a row's documents are, the
	// curation, the most chains of one, the cluster file, the chain-name
	// quirk's correction.
	OptUnits       = "units"
	OptCuration    = "curation"
	OptMaxChains   = "max_chains"
	OptClusters    = "clusters"
	OptFixChainIDs = "fix_chain_ids"
)

// Format is contacts-v1 from structures. It is safe for concurrent use
// (the library is read-only and shared by every format of the process).
type Format struct {
	doc       *contactsv1.Format
	lib       *confind.Library
	record    bool
	maxChains int // analyze_structure's max_chains (1: MarinFold's default)
}

var _ format.Format = (*Format)(nil)

// New builds contacts-v1 from run options: with rotlib=DIR, from structures
// (DIR/EBL.out and DIR/BEBL.out are loaded once per process, confind.Shared,
// so a missing or malformed library fails here, at planning, with the file
// and the line); without it, contactsv1.New over analysis records. The
// other options are contacts-v1's, plus record=true to write the analysis
// records instead of documents. Errors wrap derrors.ErrPermanent.
func New(opts map[string]string) (format.Format, error) {
	return NewFrom(context.Background(), nil, opts)
}

// NewFrom is New that reads a library named by a URI (rotlib=gs://BUCKET/
// PREFIX or file://DIR: the objects EBL.out and BEBL.out) through store,
// once per process (confind.SharedAt); a missing or malformed library
// fails here, at planning, naming the object and the line. With a nil
// store only local folders are accepted, as New.
func NewFrom(ctx context.Context, store blob.Store, opts map[string]string) (format.Format, error) {
	dir := opts[OptRotlib]
	units, err := unitOptions(opts)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		if units.set != "" {
			return nil, derrors.Permanent(fmt.Errorf("%s option %s needs %s=DIR (the documents are computed from structures)", contactsv1.Name, units.set, OptRotlib))
		}
		rest := maps.Clone(opts)
		for _, k := range []string{OptRotlib, OptUnits, OptCuration, OptMaxChains, OptClusters, OptFixChainIDs} {
			delete(rest, k) // at their defaults here
		}
		switch rest[OptRecord] {
		case "", "false":
			delete(rest, OptRecord)
		default:
			return nil, derrors.Permanent(fmt.Errorf("%s option %s=%s needs %s=DIR (records are computed from structures)", contactsv1.Name, OptRecord, rest[OptRecord], OptRotlib))
		}
		return contactsv1.New(rest)
	}
	if !confind.ExactAtan2 { // ConFind's angles need glibc's atan2 (confind.ExactAtan2)
		return nil, needcgo.Refuse(contactsv1.Name + " with " + OptRotlib)
	}
	rest := maps.Clone(opts)
	for _, k := range []string{OptRotlib, OptUnits, OptCuration, OptMaxChains, OptClusters, OptFixChainIDs} {
		delete(rest, k)
	}
	record := false
	if v, ok := rest[OptRecord]; ok {
		switch v {
		case "true":
			record = true
		case "false":
		default:
			return nil, derrors.Permanent(fmt.Errorf("%s option %s=%q: want true or false", contactsv1.Name, OptRecord, v))
		}
		delete(rest, OptRecord)
	}
	base, err := contactsv1.New(rest)
	if err != nil {
		return nil, err
	}
	lib, err := confind.SharedAt(ctx, store, dir)
	if err != nil {
		if !errors.Is(err, derrors.ErrPermanent) {
			return nil, fmt.Errorf("%s option %s=%s: %w", contactsv1.Name, OptRotlib, dir, err)
		}
		return nil, derrors.Permanent(fmt.Errorf("%s option %s=%s: %w", contactsv1.Name, OptRotlib, dir, err))
	}
	if units.perEntry() {
		if record {
			return nil, derrors.Permanent(fmt.Errorf("%s option %s=true writes one record per structure: not with %s=%s", contactsv1.Name, OptRecord, OptUnits, units.units))
		}
		return units.format(ctx, store, base.(*contactsv1.Format).Config(), lib)
	}
	return &Format{doc: base.(*contactsv1.Format), lib: lib, record: record, maxChains: units.maxChains}, nil
}

// OptionList is contacts-v1's options (contactsv1.OptionList) with rotlib
// and record, sorted by key.
func OptionList() []format.Option {
	opts := append(contactsv1.OptionList(),
		format.Option{Key: OptRotlib, Default: "", Doc: "rotamer library folder or gs://BUCKET/PREFIX (EBL.out, BEBL.out): compute the degrees from mmCIF rows; empty: read analysis records"},
		format.Option{Key: OptRecord, Default: "false", Doc: "with rotlib: write the analysis records (reusable) instead of documents"},
		format.Option{Key: OptUnits, Default: unitStructure, Doc: "with rotlib: a row's documents: structure (the structure whole), chains (each curated chain of a PDB entry alone), assembly1 (its biological assembly 1 whole) or chains,assembly1 (exp222's monomers and multimers; needs curation=af3 and a `select --pdb` manifest)"},
		format.Option{Key: OptCuration, Default: curationNone, Doc: "none, or af3 (exp222's AlphaFold 3 / Protenix curation: the first model, waters, ligands and bad chains removed, each drop counted; with units=chains/assembly1)"},
		format.Option{Key: OptMaxChains, Default: "1", Doc: "the most protein chains of one document (exp222's multimers: 60); a structure with more is filtered (multi_chain)"},
		format.Option{Key: OptClusters, Default: "", Doc: "RCSB clusters-by-entity-40.txt (path or gs://), read once per process, for the cluster_ids column (-1 where absent)"},
		format.Option{Key: OptFixChainIDs, Default: "false", Doc: "write multimers whose copies pyconfind's 2-character chain names merge (A10 into A1) corrected; off: exp222's documents, the touched ones counted"})
	slices.SortFunc(opts, func(a, b format.Option) int { return strings.Compare(a.Key, b.Key) })
	return opts
}

// Name implements format.Format.
func (f *Format) Name() string { return contactsv1.Name }

// Kind implements format.Format: a parsed structure per row.
func (f *Format) Kind() format.InputKind { return format.FromStructure }

// RecordColumns implements format.Format (none: the input is a structure).
func (f *Format) RecordColumns() []format.Column { return nil }

// Columns implements format.Format: contacts-v1's document row, or with
// record=true the analysis record's columns (the reusable record).
func (f *Format) Columns() []format.Column {
	if f.record {
		return contactsv1.RecordColumns()
	}
	return f.doc.Columns()
}

// Generate implements format.Format. The entry id (the document seed) is
// the structure's name as MarinFold derives it (the mmCIF block name less
// .cif), or the manifest's entry_id when the structure has none. MarinFold's
// multi-chain and no-protein errors are filters; pyconfind's IndexError is
// an error wrapping derrors.ErrPermanent.
func (f *Format) Generate(in format.Input) (format.Result, error) {
	if in.Structure == nil {
		return format.Result{}, derrors.Permanent(errors.New("contacts-v1 from structures: no structure"))
	}
	var a *contactsv1.Analysis
	var err error
	if f.maxChains > 1 {
		a, err = pdbunits.Analyze(in.Structure, f.lib, f.maxChains)
		if a != nil {
			a.EntryID = confind.EntryID(in.Structure, in.EntryID)
		}
	} else {
		a, err = confind.AnalyzeNative(in.Structure, in.EntryID, f.lib)
	}
	switch {
	case errors.Is(err, confind.ErrMultiChain):
		return format.Result{Filtered: FilterMultiChain}, nil
	case errors.Is(err, confind.ErrNoProtein):
		return format.Result{Filtered: FilterNoProtein}, nil
	case err != nil:
		return format.Result{}, derrors.Permanent(fmt.Errorf("confind(%s): %w", in.EntryID, err))
	}
	if f.record {
		text, err := RecordJSON(a)
		if err != nil {
			return format.Result{}, derrors.Permanent(err)
		}
		return format.Result{Document: text, Values: RecordValues(a)}, nil
	}
	doc, filtered, err := contactsv1.Generate(a, f.doc.Config())
	if err != nil {
		return format.Result{}, err
	}
	if doc == nil {
		return format.Result{Filtered: filtered}, nil
	}
	return format.Result{Document: doc.Text, Values: doc.Values()}, nil
}

// RecordJSON is the analysis record as one JSON object (the "input"
// objects of golden/contacts-v1.jsonl; degrees as shortest round-trip
// floats), the document of a record=true run.
func RecordJSON(a *contactsv1.Analysis) (string, error) {
	type rec struct {
		EntryID        string    `json:"entry_id"`
		SeqLen         int       `json:"seq_len"`
		GlobalPLDDT    *float64  `json:"global_plddt"`
		NumContacts    int       `json:"num_contacts"`
		ResidueResname []string  `json:"residue_resname"`
		ResidueResnum  []int64   `json:"residue_resnum"`
		ResidueChain   []string  `json:"residue_chain"`
		ContactSeqI    []int64   `json:"contact_seq_i"`
		ContactSeqJ    []int64   `json:"contact_seq_j"`
		ContactDegree  []float64 `json:"contact_degree"`
	}
	r := rec{a.EntryID, len(a.ResName), a.GlobalPLDDT, len(a.Degree), a.ResName, a.ResNum, a.ResChain, a.ContactI, a.ContactJ, a.Degree}
	if r.GlobalPLDDT != nil && math.IsNaN(*r.GlobalPLDDT) {
		r.GlobalPLDDT = nil
	}
	for _, s := range []*[]int64{&r.ResidueResnum, &r.ContactSeqI, &r.ContactSeqJ} {
		if *s == nil {
			*s = []int64{}
		}
	}
	if r.ContactDegree == nil {
		r.ContactDegree = []float64{}
	}
	b, err := json.Marshal(r)
	return string(b), err
}

// RecordValues is the analysis record as a row aligned with
// contactsv1.RecordColumns (the columns contacts-v1 reads back).
func RecordValues(a *contactsv1.Analysis) []any {
	var plddt any
	if a.GlobalPLDDT != nil {
		plddt = *a.GlobalPLDDT
	}
	return []any{a.EntryID, int64(len(a.ResName)), plddt, int64(len(a.Degree)),
		a.ResName, a.ResNum, a.ResChain, a.ContactI, a.ContactJ, a.Degree}
}

// Spec registers contacts-v1 (format.Spec): it reads analysis records by
// default (contactsv1.New) and structures with rotlib=.
func Spec() format.Spec {
	return format.Spec{Name: contactsv1.Name, Input: format.FromRecord, Options: OptionList, New: newIn}
}

// newIn is the registry's constructor: NewFrom with the run's store.
func newIn(ctx context.Context, env format.Env, opts map[string]string) (format.Format, error) {
	return NewFrom(ctx, env.Store, opts)
}
