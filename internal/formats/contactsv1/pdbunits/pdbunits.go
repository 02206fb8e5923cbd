// Package pdbunits is the step of MarinFold exp222 after curation: from a
// PDB entry's curated units (package curation: each kept chain of the
// asymmetric unit alone, and biological assembly 1 whole) to exp222's
// document rows (the 35 columns of its DOC_SCHEMA) and its ledger row.
//
// Each unit is analysed by our ConFind (confind.AnalyzeNativeResult,
// MarinFold's analyze_structure settings: native_only, 3.0 A contacts,
// 25 A dcut, 2.0 A clashes, assembly=None) and written as contacts-v1
// (contactsv1.Generate, which lays several chains out on the ring),
// seeded by exp222's entry ids: "<pdb>_<chain>" for a monomer,
// "<pdb>_assembly1" for the multimer. The outcomes are exp222's: a
// monomer with no document is a ledger failure ("A: unserializable", or
// "A: <Python error type>: <message>"); the multimer is ok,
// unserializable, collapsed_to_monomer (pyconfind saw fewer than two
// chains) or error.
//
// exp222's quirk is kept by default: pyconfind keeps two characters of a
// chain name, so an assembly's copies A10..A19 merge into A1's positions,
// and names longer than two characters lose their entity and cluster ids
// (the document's chain names are pyconfind's, not curation's). Unit.Quirk
// says where it touched a multimer; Options.FixChainIDs writes the
// corrected document instead (see quirk.go).
//
// ProcessEntry (entry.go) is the whole of exp222's process_entry for one
// selected entry's bytes and its task (the PDB selection's manifest
// columns): read, curate, Build. Cluster ids come from an RCSB
// clusters-by-entity-40.txt (ReadClusters).
package pdbunits

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/curation"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Subsets (exp222's subset column).
const (
	SubsetMonomer  = "monomer"
	SubsetMultimer = "multimer"
)

// Unit outcomes: a document, or exp222's name for why there is none.
const (
	OutcomeDocument           = "document"
	OutcomeUnserializable     = curation.StatusUnserializable
	OutcomeCollapsedToMonomer = curation.StatusCollapsedToMonomer
	OutcomeError              = curation.StatusError
)

// Meta is what exp222 copies from the entry's header scan into each row
// (its Task).
type Meta struct {
	PDBID       string // lower case, from the file name
	ReleaseDate string
	Resolution  *float64 // nil: none reported (NMR)
	Method      string
}

// Options are the document step's settings.
type Options struct {
	// Library is the rotamer library ConFind places from (required).
	Library *confind.Library
	// Clusters gives cluster_ids; nil: every id is -1.
	Clusters *Clusters
	// Config is the contacts-v1 generation config; the zero value means
	// contactsv1.DefaultConfig (exp222's GenerationConfig()).
	Config contactsv1.Config
	// MaxChains is the most protein chains pyconfind may report for the
	// multimer (exp222's MULTIMER_CONFIG max_chains); 0 means
	// curation.DefaultMaxChains. Monomers always take 1.
	MaxChains int
	// FixChainIDs writes the corrected multimer document where
	// pyconfind's 2-character chain names would change a kept chain's
	// name: each chain is analysed under a distinct name and the document
	// carries curation's names (see quirk.go). Off by default: exp222's
	// corpus is the one with the quirk.
	FixChainIDs bool
	// NoMonomers and NoMultimer leave a unit kind out (the run's units
	// option: chains, assembly1): its documents are not analysed, and
	// the ledger row says so (monomer_docs 0; multimer_status
	// not_requested). The zero value is exp222's: both.
	NoMonomers, NoMultimer bool
}

// StatusNotRequested is the ledger's multimer_status of a run that asked
// for monomers only (units=chains): the assembly is neither expanded nor
// analysed.
const StatusNotRequested = "not_requested"

// Unit is one analysed structure: a monomer (a kept ASU chain alone) or
// the multimer (assembly 1's kept chains), in exp222's order.
type Unit struct {
	Subset  string
	EntryID string // the seed: <pdb>_<chain> or <pdb>_assembly1
	Chain   string // the monomer's chain ("" for the multimer)
	Outcome string // OutcomeDocument or why there is no document
	Error   string // "<type>: <message>" for OutcomeError
	Row     *Row   // set for OutcomeDocument
	Quirk   Quirk  // the multimer's chain-name quirk
}

// Entry is what the document step made of one curated entry.
type Entry struct {
	Units  []Unit // the monomers in curation order, then the multimer if it went on
	Ledger curation.LedgerRow
}

// Build analyses the entry's curated units and writes their documents
// and the entry's ledger row. Only a defect of ours (a malformed record,
// a ConFind failure that is not one of pyconfind's errors, a missing
// library) is an error; every unit without a document is in the result,
// by exp222's name.
func Build(res *curation.Result, meta Meta, opt Options) (*Entry, error) {
	if opt.Library == nil {
		return nil, fmt.Errorf("pdbunits %s: no rotamer library", meta.PDBID)
	}
	return build(res, meta, opt, confindAnalyzer(opt.Library))
}

// analyzer is MarinFold's analyze_structure for one unit: the analysis
// record of st, whose pyconfind chains must number at most maxChains, or
// pyconfind's error (*confind.AnalysisError).
type analyzer func(st *structure.Structure, maxChains int) (*contactsv1.Analysis, error)

// confindAnalyzer is analyze_structure on our ConFind.
func confindAnalyzer(lib *confind.Library) analyzer {
	return func(st *structure.Structure, maxChains int) (*contactsv1.Analysis, error) {
		a, r, err := confind.AnalyzeNativeResult(st, sourceName(st), lib)
		if !errors.Is(err, confind.ErrMultiChain) || r == nil || maxChains <= 1 {
			return a, err
		}
		// AnalyzeNativeResult applies max_chains=1; apply maxChains.
		if chainCount(r) > maxChains {
			var ae *confind.AnalysisError
			if errors.As(err, &ae) {
				return nil, &confind.AnalysisError{Kind: ae.Kind, Msg: strings.Replace(ae.Msg, "max_chains=1.", fmt.Sprintf("max_chains=%d.", maxChains), 1)}
			}
			return nil, err
		}
		return analysisOf(st, r), nil
	}
}

func build(res *curation.Result, meta Meta, opt Options, analyze analyzer) (*Entry, error) {
	if res == nil {
		return nil, fmt.Errorf("pdbunits %s: no curation result", meta.PDBID)
	}
	if opt.Config == (contactsv1.Config{}) {
		opt.Config = contactsv1.DefaultConfig()
	}
	if opt.MaxChains <= 0 {
		opt.MaxChains = curation.DefaultMaxChains
	}
	out := &Entry{}
	var d curation.DocumentOutcome
	for _, m := range res.Monomers {
		u, err := monomer(m, meta, opt, analyze)
		if err != nil {
			return nil, err
		}
		switch u.Outcome {
		case OutcomeDocument:
			d.MonomerDocs++
		case OutcomeError:
			d.MonomerFailures = append(d.MonomerFailures, u.Chain+": "+u.Error)
		default:
			d.MonomerFailures = append(d.MonomerFailures, u.Chain+": "+u.Outcome)
		}
		out.Units = append(out.Units, u)
	}
	if res.Multimer != nil {
		u, err := multimer(res, meta, opt, analyze)
		if err != nil {
			return nil, err
		}
		d.MultimerStatus = u.Outcome
		switch u.Outcome {
		case OutcomeDocument:
			d.MultimerStatus = curation.StatusOK
		case OutcomeError:
			d.MultimerError = "multimer: " + u.Error
		}
		out.Units = append(out.Units, u)
	}
	led, err := res.Ledger(meta.PDBID, d)
	if err != nil {
		return nil, fmt.Errorf("pdbunits: %w", err)
	}
	out.Ledger = led
	return out, nil
}

// monomer is exp222's monomer pass for one kept chain.
func monomer(m curation.Monomer, meta Meta, opt Options, analyze analyzer) (Unit, error) {
	u := Unit{Subset: SubsetMonomer, EntryID: meta.PDBID + "_" + m.Chain.ChainID, Chain: m.Chain.ChainID}
	a, err := analyze(m.Structure, 1)
	if err != nil {
		text, ok := pyError(err)
		if !ok {
			return u, fmt.Errorf("pdbunits %s: confind: %w", u.EntryID, err)
		}
		u.Outcome, u.Error = OutcomeError, text
		return u, nil
	}
	a.EntryID = u.EntryID
	doc, err := document(a, opt.Config, u.EntryID)
	if err != nil || doc == nil {
		u.Outcome = OutcomeUnserializable
		return u, err
	}
	u.Outcome = OutcomeDocument
	u.Row = newRow(SubsetMonomer, meta, doc, a, []string{m.Chain.EntityID},
		[]int64{opt.Clusters.ID(meta.PDBID, m.Chain.EntityID)}, []string{m.Chain.ASUChainID})
	return u, nil
}

// multimer is exp222's _build_multimer for the curated assembly.
func multimer(res *curation.Result, meta Meta, opt Options, analyze analyzer) (Unit, error) {
	u := Unit{Subset: SubsetMultimer, EntryID: meta.PDBID + "_assembly1"}
	st := res.Multimer
	u.Quirk = quirkOf(res.Assembly.Kept)
	var rename map[string]string // analysed name -> curated name
	if opt.FixChainIDs && (u.Quirk.Cut || u.Quirk.Merged) {
		var err error
		if st, rename, err = distinctNames(st); err != nil {
			return u, fmt.Errorf("pdbunits %s: %w", u.EntryID, err)
		}
		u.Quirk.Corrected = true
	}
	a, err := analyze(st, opt.MaxChains)
	if err != nil {
		text, ok := pyError(err)
		if !ok {
			return u, fmt.Errorf("pdbunits %s: confind: %w", u.EntryID, err)
		}
		u.Outcome, u.Error = OutcomeError, text
		return u, nil
	}
	a.EntryID = u.EntryID
	if rename != nil {
		for i, c := range a.ResChain {
			name, ok := rename[c]
			if !ok {
				return u, fmt.Errorf("pdbunits %s: ConFind chain %q is no chain of the corrected structure", u.EntryID, c)
			}
			a.ResChain[i] = name
		}
	}
	doc, err := document(a, opt.Config, u.EntryID)
	if err != nil {
		return u, err
	}
	switch {
	case doc == nil:
		u.Outcome = OutcomeUnserializable
		return u, nil
	case len(doc.ChainIDs) < 2:
		u.Outcome = OutcomeCollapsedToMonomer
		return u, nil
	}
	entity := make(map[string]string, len(res.Assembly.Kept))
	for _, k := range res.Assembly.Kept {
		entity[k.ChainID] = k.EntityID
	}
	entities := make([]string, len(doc.ChainIDs))
	clusters := make([]int64, len(doc.ChainIDs))
	for i, c := range doc.ChainIDs {
		entities[i] = entity[c] // "" where pyconfind's name is no curated chain's
		clusters[i] = opt.Clusters.ID(meta.PDBID, entities[i])
	}
	u.Outcome = OutcomeDocument
	u.Row = newRow(SubsetMultimer, meta, doc, a, entities, clusters, append([]string(nil), doc.ChainIDs...))
	return u, nil
}

// document is contacts-v1's document of a; nil when it cannot be
// serialized (exp222's result None). A malformed record is our defect.
func document(a *contactsv1.Analysis, cfg contactsv1.Config, entryID string) (*contactsv1.Document, error) {
	doc, _, err := contactsv1.Generate(a, cfg)
	if err != nil {
		return nil, fmt.Errorf("pdbunits %s: %w", entryID, err)
	}
	return doc, nil
}

// analysisOf is AnalyzeNativeResult's record for a result of several
// chains (the record analyze_structure builds once max_chains allows
// them).
func analysisOf(st *structure.Structure, r *confind.Result) *contactsv1.Analysis {
	a := &contactsv1.Analysis{}
	plddt := confind.GlobalPLDDT(st)
	a.GlobalPLDDT = &plddt
	for i := range r.Positions {
		p := &r.Positions[i]
		a.ResName = append(a.ResName, confind.Canonical(p.ResName))
		a.ResNum = append(a.ResNum, int64(p.ResNum))
		a.ResChain = append(a.ResChain, p.Chain)
	}
	a.ContactI = make([]int64, 0, len(r.Contacts))
	a.ContactJ = make([]int64, 0, len(r.Contacts))
	a.Degree = make([]float64, 0, len(r.Contacts))
	for _, c := range r.Contacts {
		a.ContactI = append(a.ContactI, int64(c.I))
		a.ContactJ = append(a.ContactJ, int64(c.J))
		a.Degree = append(a.Degree, c.Degree)
	}
	return a
}

func chainCount(r *confind.Result) int {
	seen := map[string]bool{}
	for i := range r.Positions {
		seen[r.Positions[i].Chain] = true
	}
	return len(seen)
}

// pyError is pyconfind's error as exp222 records it ("<type>: <message>").
func pyError(err error) (string, bool) {
	var ae *confind.AnalysisError
	if errors.As(err, &ae) {
		return ae.PyType() + ": " + ae.Msg, true
	}
	return "", false
}

// sourceName is analyze_structure's source_path for a gemmi.Structure:
// its name, or "<gemmi.Structure>" when it has none.
func sourceName(st *structure.Structure) string {
	if st.Name == "" {
		return "<gemmi.Structure>"
	}
	return st.Name
}

// resolvedSeqSHA1 is exp222's resolved_seq_sha1: the SHA-1 of the
// document's residue names (canonical, three letters each) joined.
func resolvedSeqSHA1(names []string) string {
	h := sha1.New()
	for _, n := range names {
		h.Write([]byte(n))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Analyze is MarinFold's analyze_structure (native_only, assembly=None)
// of st with max_chains=maxChains: the analysis record, or pyconfind's
// error (*confind.AnalysisError; confind.ErrMultiChain when st has more
// protein chains than maxChains).
func Analyze(st *structure.Structure, lib *confind.Library, maxChains int) (*contactsv1.Analysis, error) {
	return confindAnalyzer(lib)(st, maxChains)
}
