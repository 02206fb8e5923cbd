// Package contactsv1 generates contacts-v1 documents (MarinFold's format of
// pyconfind side-chain contacts) from precomputed analysis records: one
// manifest row per structure with its residues and its contacts with
// contact degrees. No structure is fetched or parsed: the rows are the input.
//
// A document is a shuffled sequence section (one <pX> <AA> statement per
// residue and one <n-term>/<c-term> pair per chain, chains laid out on a
// 2000-index ring from a random start) and the strongest contacts that fit
// the 8192-token budget, in random order with random orientation. Documents
// are byte-identical to the reference generator's: every random draw comes
// from a CPython-compatible generator seeded from the entry id, in the
// reference's order.
package contactsv1

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/needcgo"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// Name is the format's registry name.
const Name = "contacts-v1"

// Format is the contacts-v1 format.Format. It holds only its configuration
// and is safe for concurrent use.
type Format struct {
	cfg Config
}

var _ format.Format = (*Format)(nil)

// New builds the format from run options (all optional):
//
//	think               "true"/"false" (default false): <think> runs between contacts
//	min_seq_separation  integer >= 1 (default 6)
//	min_contact_degree  number >= 0 (default 0.001)
//	context_length      integer >= 1 (default 8192)
//
// An unknown option or a bad value is an error wrapping derrors.ErrPermanent;
// think=true in a build without cgo is needcgo.ErrNoCgo.
func New(opts map[string]string) (format.Format, error) {
	cfg := DefaultConfig()
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := opts[k]
		var err error
		switch k {
		case "think":
			cfg.Think, err = strconv.ParseBool(v)
		case "min_seq_separation":
			cfg.MinSeqSeparation, err = atoiMin(v, 1)
		case "context_length":
			cfg.ContextLength, err = atoiMin(v, 1)
		case "min_contact_degree":
			cfg.MinContactDegree, err = strconv.ParseFloat(v, 64)
			if err == nil && !(cfg.MinContactDegree >= 0) {
				err = fmt.Errorf("must be a number >= 0")
			}
		default:
			err = fmt.Errorf("unknown option (known: think, min_seq_separation, min_contact_degree, context_length)")
		}
		if err != nil {
			return nil, derrors.Permanent(fmt.Errorf("%s option %s=%q: %w", Name, k, v, err))
		}
	}
	if cfg.Think && !pyrandom.ExactLibm { // the think runs' ceil(log/log) (think.go)
		return nil, needcgo.Refuse(Name + " think=true")
	}
	return &Format{cfg: cfg}, nil
}

// NewWithConfig returns the format with an explicit configuration.
func NewWithConfig(cfg Config) *Format { return &Format{cfg: cfg} }

func atoiMin(v string, lo int) (int, error) {
	n, err := strconv.Atoi(v)
	if err == nil && n < lo {
		err = fmt.Errorf("must be an integer >= %d", lo)
	}
	return n, err
}

// Config returns the format's configuration.
func (f *Format) Config() Config { return f.cfg }

// Name implements format.Format.
func (f *Format) Name() string { return Name }

// Kind implements format.Format: the manifest row is the input.
func (f *Format) Kind() format.InputKind { return format.FromRecord }

// RecordColumns implements format.Format.
func (f *Format) RecordColumns() []format.Column { return RecordColumns() }

// Columns implements format.Format: the reference's output row after its
// document column, in the reference's order.
func (f *Format) Columns() []format.Column {
	return []format.Column{
		{Name: "entry_id", Type: format.String},
		{Name: "seq_len", Type: format.Int64},
		{Name: "global_plddt", Type: format.Float64, Nullable: true},
		{Name: "start_index", Type: format.Int64},
		{Name: "n_term_index", Type: format.Int64},
		{Name: "c_term_index", Type: format.Int64},
		{Name: "min_seq_separation", Type: format.Int64},
		{Name: "contacts_pre_filter", Type: format.Int64},
		{Name: "contacts_passing_min_degree", Type: format.Int64},
		{Name: "contacts_emitted", Type: format.Int64},
		{Name: "contacts_excluded", Type: format.Int64},
		{Name: "truncated", Type: format.Bool},
		{Name: "highest_contact_degree", Type: format.Float64, Nullable: true},
		{Name: "lowest_nonzero_contact_degree", Type: format.Float64, Nullable: true},
		{Name: "lowest_included_contact_degree", Type: format.Float64, Nullable: true},
		{Name: "num_tokens", Type: format.Int64},
		{Name: "think_tokens", Type: format.Int64},
		{Name: "num_chains", Type: format.Int64},
		{Name: "chain_ids", Type: format.StringList},
		{Name: "chain_lengths", Type: format.Int64List},
		{Name: "n_term_indices", Type: format.Int64List},
		{Name: "c_term_indices", Type: format.Int64List},
		{Name: "contacts_pre_filter_inter_chain", Type: format.Int64},
		{Name: "contacts_emitted_inter_chain", Type: format.Int64},
		{Name: "sha1", Type: format.String},
	}
}

// Generate implements format.Format. A malformed record is an error wrapping
// derrors.ErrPermanent that names the entry.
func (f *Format) Generate(in format.Input) (format.Result, error) {
	a, err := AnalysisFromRecord(in.EntryID, in.Record)
	if err != nil {
		return format.Result{}, err
	}
	doc, filtered := generate(a, f.cfg)
	if doc == nil {
		return format.Result{Filtered: filtered}, nil
	}
	return format.Result{Document: doc.Text, Values: doc.Values()}, nil
}

// Values returns the metadata row aligned with Format.Columns (nil for null).
func (d *Document) Values() []any {
	return []any{
		d.EntryID,
		int64(d.SeqLen),
		floatOrNil(d.GlobalPLDDT),
		int64(d.StartIndex),
		int64(d.NTermIndex),
		int64(d.CTermIndex),
		int64(d.MinSeqSeparation),
		int64(d.ContactsPreFilter),
		int64(d.ContactsPassingMinDegree),
		int64(d.ContactsEmitted),
		int64(d.ContactsExcluded),
		d.Truncated,
		floatOrNil(d.HighestContactDegree),
		floatOrNil(d.LowestNonzeroDegree),
		floatOrNil(d.LowestIncludedDegree),
		int64(d.NumTokens),
		int64(d.ThinkTokens),
		int64(len(d.ChainIDs)),
		d.ChainIDs,
		d.ChainLengths,
		d.NTermIndices,
		d.CTermIndices,
		int64(d.PreFilterInterChain),
		int64(d.EmittedInterChain),
		d.SHA1,
	}
}

func floatOrNil(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
