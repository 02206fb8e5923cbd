package pdbunits

import (
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
)

// Format is exp222's run as a format: each manifest row is a selected PDB
// entry (its mmCIF object, and the header columns of TaskColumns), and it
// writes the entry's documents (format.Multi: every curated chain alone,
// then assembly 1 whole) and its ledger row. It reads the entry's bytes
// itself (format.Raw): the curation needs the entity and assembly
// categories a parsed Structure does not keep. Safe for concurrent use.
type Format struct {
	opt Options
}

var (
	_ format.Multi = (*Format)(nil)
	_ format.Raw   = (*Format)(nil)
)

// NewFormat is the format with these options (Library required).
func NewFormat(opt Options) (*Format, error) {
	if opt.Library == nil {
		return nil, derrors.Permanent(fmt.Errorf("%s units: no rotamer library", contactsv1.Name))
	}
	if opt.NoMonomers && opt.NoMultimer {
		return nil, derrors.Permanent(fmt.Errorf("%s units: neither chains nor assembly1", contactsv1.Name))
	}
	if opt.Config == (contactsv1.Config{}) {
		opt.Config = contactsv1.DefaultConfig()
	}
	return &Format{opt: opt}, nil
}

// Name implements format.Format.
func (f *Format) Name() string { return contactsv1.Name }

// Kind implements format.Format: the row's structure (as raw bytes).
func (f *Format) Kind() format.InputKind { return format.FromStructure }

// ReadsRaw implements format.Raw.
func (f *Format) ReadsRaw() bool { return true }

// RecordColumns implements format.Format: the entry's header fields, which
// `foldcorpus select --pdb` writes into its manifest.
func (f *Format) RecordColumns() []format.Column { return TaskColumns() }

// Columns implements format.Format: exp222's document columns.
func (f *Format) Columns() []format.Column { return Columns() }

// LedgerColumns implements format.Multi: exp222's ledger row (its
// LEDGER_SCHEMA, int32 columns as Int64).
func (f *Format) LedgerColumns() []format.Column {
	return []format.Column{
		{Name: "pdb_id", Type: format.String},
		{Name: "asu_chains_kept", Type: format.Int64},
		{Name: "asu_chains_dropped", Type: format.Int64},
		{Name: "asu_drop_reasons", Type: format.StringList},
		{Name: "monomer_docs", Type: format.Int64},
		{Name: "monomer_failures", Type: format.StringList},
		{Name: "assembly_chains_kept", Type: format.Int64},
		{Name: "assembly_chains_dropped", Type: format.Int64},
		{Name: "assembly_drop_reasons", Type: format.StringList},
		{Name: "multimer_status", Type: format.String},
		{Name: "error", Type: format.String, Nullable: true},
	}
}

// Funnel keys (format.Result.Funnel): "<prefix><reason>".
const (
	FunnelASUChainKept       = "asu_chains_kept"
	FunnelASUChainDropped    = "asu_chain_dropped:"      // + curation's reason
	FunnelAssemblyChainKept  = "assembly_chains_kept"    //
	FunnelAssemblyDropped    = "assembly_chain_dropped:" // + curation's reason
	FunnelMonomerNoDocument  = "monomer_no_document:"    // + the unit's outcome
	FunnelMultimer           = "multimer:"               // + the ledger's multimer_status
	FunnelInterChainContacts = "multimer_inter_chain_contacts"
	// FunnelQuirkTouched counts multimer documents whose chains the
	// 2-character chain name quirk merged or renamed (Quirk.Touched);
	// FunnelQuirkCorrected those written corrected (fix_chain_ids).
	FunnelQuirkTouched   = "multimer_quirk_chain_ids"
	FunnelQuirkCorrected = "multimer_quirk_corrected"
)

// Generate implements format.Format: exp222's process_entry for the row's
// entry (ProcessEntry). The PDB id is the entry id in lower case (exp222
// takes it from the file name: `foldcorpus manifest`'s stem rule gives
// "1abc" for 1abc.cif.gz). A file that cannot be read, a missing header
// column or a defect of ours is an error naming the entry.
func (f *Format) Generate(in format.Input) (format.Result, error) {
	if in.Data == nil {
		return format.Result{}, derrors.Permanent(fmt.Errorf("entry %s: no bytes (a raw format)", in.EntryID))
	}
	task, err := TaskFromRecord(strings.ToLower(in.EntryID), in.Record)
	if err != nil {
		return format.Result{}, derrors.Permanent(err)
	}
	e, err := ProcessEntry(in.Data, task, f.opt)
	if err != nil {
		return format.Result{}, derrors.Permanent(err)
	}
	return result(e), nil
}

// result is the entry's documents, ledger row and funnel counts.
func result(e *Entry) format.Result {
	l := e.Ledger
	res := format.Result{Funnel: map[string]int64{}}
	res.Funnel[FunnelASUChainKept] += int64(l.ASUChainsKept)
	res.Funnel[FunnelAssemblyChainKept] += int64(l.AssemblyChainsKept)
	for _, r := range l.ASUDropReasons {
		res.Funnel[FunnelASUChainDropped+r]++
	}
	for _, r := range l.AssemblyDropReasons {
		res.Funnel[FunnelAssemblyDropped+r]++
	}
	res.Funnel[FunnelMultimer+l.MultimerStatus]++
	for _, u := range e.Units {
		if u.Row == nil {
			if u.Subset == SubsetMonomer {
				res.Funnel[FunnelMonomerNoDocument+u.Outcome]++
			}
			continue
		}
		if u.Subset == SubsetMultimer {
			res.Funnel[FunnelInterChainContacts] += int64(u.Row.Doc.EmittedInterChain)
			if u.Quirk.Touched() {
				res.Funnel[FunnelQuirkTouched]++
			}
			if u.Quirk.Corrected {
				res.Funnel[FunnelQuirkCorrected]++
			}
		}
		res.Units = append(res.Units, format.Unit{EntryID: u.EntryID, Kind: u.Subset, Document: u.Row.Doc.Text, Values: u.Row.Values()})
	}
	for k, n := range res.Funnel {
		if n == 0 {
			delete(res.Funnel, k)
		}
	}
	var errText any
	if l.Error != nil {
		errText = *l.Error
	}
	res.Ledger = []any{l.PDBID, int64(l.ASUChainsKept), int64(l.ASUChainsDropped), nonNil(l.ASUDropReasons),
		int64(l.MonomerDocs), nonNil(l.MonomerFailures), int64(l.AssemblyChainsKept), int64(l.AssemblyChainsDropped),
		nonNil(l.AssemblyDropReasons), l.MultimerStatus, errText}
	return res
}

// nonNil is xs, or an empty list for nil (the ledger's lists are never
// null).
func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
