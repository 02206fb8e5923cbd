// Package coordinatesv1 is MarinFold's contacts-and-coordinates-v1 document
// format: contacts-v1's sequence section and a random sample of its
// contacts, then coarse-to-fine <xyz-DDD> mentions of the structure's heavy
// atoms in a randomly rotated and placed 1000 Å cube, in 32,768 tokens;
// byte-identical to the reference generator
// (../shared/formats/contacts-and-coordinates-crops-notes.md).
//
// The contact degrees are ConFind's, computed in the shard from the same
// structure (Format.Analyze); the document is then a pure function of the
// structure, the analysis, the entry id (the seed) and the options.
package coordinatesv1

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
)

// Name is the format's registry name.
const Name = "contacts-and-coordinates-v1"

// Format is the contacts-and-coordinates-v1 format.Format. It holds its
// configuration and its analyzer, and is safe for concurrent use when the
// analyzer is.
type Format struct {
	cfg Config
	// Analyze computes each structure's analysis (ConFind's degrees).
	Analyze coordfront.Analyzer
	// Rotlib is the rotamer library folder the options named.
	Rotlib string
	gens   sync.Pool // *Generator
}

var _ format.Format = (*Format)(nil)

// knobs are the format's options, applied to cfg and rotlib.
func knobs(cfg *Config, rotlib *string) []coordfront.Knob {
	return append(coordfront.CommonKnobs(&cfg.Front, rotlib),
		coordfront.Int("max_depth", &cfg.MaxDepth, "finest place emitted: 3 = ones (1 Å), 4 adds tenths"),
		coordfront.Float("noise_divisor", &cfg.NoiseDivisor, "mention noise sigma = bin width / this"),
		coordfront.Float("depth_kernel_epsilon", &cfg.DepthKernelEpsilon, "floor weight of the depth kernel"),
		coordfront.Bool("force_full_precision_first_event", &cfg.ForceFullPrecisionFirstEvent, "the first mention gets max_depth"),
	)
}

// OptionList lists every option with its default, sorted by key.
func OptionList() []format.Option {
	cfg, rot := DefaultConfig(), ""
	return coordfront.Options(knobs(&cfg, &rot))
}

// Configure parses run options into a configuration and the rotamer
// library folder (required). Errors wrap derrors.ErrPermanent.
func Configure(opts map[string]string) (Config, string, error) {
	cfg, rot := DefaultConfig(), ""
	if err := coordfront.Configure(Name, knobs(&cfg, &rot), opts, cfg.Validate); err != nil {
		return cfg, "", err
	}
	return cfg, rot, nil
}

// New returns the format with cfg and an analyzer. Byte identity needs the
// C library's log, sin and cos (pyrandom.ExactLibm): without cgo New fails.
func New(cfg Config, analyze coordfront.Analyzer) (*Format, error) {
	if err := coordfront.CheckNew(Name, cfg.Validate()); err != nil {
		return nil, err
	}
	return &Format{cfg: cfg, Analyze: analyze}, nil
}

// Config returns the format's configuration.
func (f *Format) Config() Config { return f.cfg }

func (f *Format) Name() string                   { return Name }
func (f *Format) Kind() format.InputKind         { return format.FromStructure }
func (f *Format) RecordColumns() []format.Column { return nil }

// Columns are the reference's metadata_row after its document, with one
// depth{d}_count column per depth up to max_depth, less its sha1: the
// corpus's own sha1 column holds that, hashed by the shard's sink from the
// document's bytes as for every format that does not list it (the
// reference's generate_document does not hash either: its sha1 is a
// property, computed when the row is written).
func (f *Format) Columns() []format.Column {
	i := func(n string) format.Column { return format.Column{Name: n, Type: format.Int64} }
	fl := func(n string) format.Column { return format.Column{Name: n, Type: format.Float64} }
	cols := []format.Column{{Name: "entry_id", Type: format.String}, i("seq_len"),
		{Name: "global_plddt", Type: format.Float64, Nullable: true}, i("start_index"), i("n_term_index"),
		i("c_term_index"), i("min_seq_separation"), i("num_contacts_eligible"), i("contacts_emitted"),
		i("num_eligible_atoms"), i("num_events"), i("num_distinct_atoms_mentioned"), i("max_depth")}
	for d := 1; d <= f.cfg.MaxDepth; d++ {
		cols = append(cols, i("depth"+strconv.Itoa(d)+"_count"))
	}
	return append(cols, fl("quat_w"), fl("quat_x"), fl("quat_y"), fl("quat_z"), fl("trans_x"), fl("trans_y"),
		fl("trans_z"), format.Column{Name: "truncated", Type: format.Bool}, i("num_tokens"))
}

// MixClasses names Result.Mix's counts (format.Mixer): the sequence
// section's tokens, the contact statements, the mention events and the
// coordinate section's tokens.
func (f *Format) MixClasses() []string {
	return []string{format.MixSequence, format.MixContact, format.MixCoordinate, format.MixCoordinateTokens}
}

// Generate writes in's document. The seed is in.EntryID, or, when empty,
// the entry id of the structure's block name. An analysis failure is an
// error (permanent unless the analyzer says transient); the reference's
// skips and its caught analysis errors are filter outcomes.
func (f *Format) Generate(in format.Input) (format.Result, error) {
	a, id, filtered, err := coordfront.AnalyzeInput(f.Analyze, Name, in)
	if err != nil || filtered != "" {
		return format.Result{Filtered: filtered}, err
	}
	g, _ := f.gens.Get().(*Generator)
	if g == nil {
		g = new(Generator)
	}
	defer f.gens.Put(g)
	d, filtered := g.Generate(in.Structure, a, id, f.cfg)
	if filtered == coordfront.ReasonNonFinite {
		return format.Result{}, coordfront.NonFinite(Name, id, g.front.Bad())
	}
	if d == nil {
		return format.Result{Filtered: filtered}, nil
	}
	return format.Result{Document: d.Text, Values: d.Values(),
		Mix: []int64{int64(2*d.SeqLen + coordfront.TerminusTokens), int64(d.ContactsEmitted), int64(d.NumEvents),
			int64(d.CoordinateTokens)}}, nil
}

// Values is the metadata row aligned with Format.Columns.
func (d *Document) Values() []any {
	v := []any{d.EntryID, int64(d.SeqLen), coordfront.FloatOrNil(d.GlobalPLDDT), int64(d.StartIndex), int64(d.NTermIndex),
		int64(d.CTermIndex), int64(d.MinSeqSeparation), int64(d.NumContactsEligible), int64(d.ContactsEmitted),
		int64(d.NumEligibleAtoms), int64(d.NumEvents), int64(d.NumDistinctAtomsMentioned), int64(d.MaxDepth)}
	for _, n := range d.DepthCounts {
		v = append(v, int64(n))
	}
	return append(v, d.Quat[0], d.Quat[1], d.Quat[2], d.Quat[3], d.Trans[0], d.Trans[1], d.Trans[2],
		d.Truncated, int64(d.NumTokens))
}

// NewFromOptions builds the format from run options (the registry's
// constructor): rotlib (required) names ConFind's rotamer library, a
// folder or a URI (gs://BUCKET/PREFIX) read through env.Store, loaded once
// per process and shared; every other option takes the
// reference's default when absent (OptionList).
func NewFromOptions(ctx context.Context, env format.Env, opts map[string]string) (format.Format, error) {
	cfg, rotlib, err := Configure(opts)
	if err != nil {
		return nil, err
	}
	an, err := coordfront.ConFind(ctx, env.Store, rotlib)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	f, err := New(cfg, an)
	if err != nil {
		return nil, err
	}
	f.Rotlib = rotlib
	return f, nil
}

// Spec registers contacts-and-coordinates-v1 (format.Spec): the registry's one
// line for this format.
func Spec() format.Spec {
	return format.Spec{Name: Name, Input: format.FromStructure, Options: OptionList, New: NewFromOptions}
}
