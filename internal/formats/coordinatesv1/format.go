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
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Name is the format's registry name.
const Name = "contacts-and-coordinates-v1"

// Format is the contacts-and-coordinates-v1 format: coordfront.Format, the
// wrapper both coordinate formats share.
type Format = coordfront.Format[Config]

// Kind is the format's part of coordfront.Format, and its constructors:
// Kind.Spec (the registry's line), Kind.New, Kind.Configure and
// Kind.OptionList. Its MixClasses name Result.Mix's counts (format.Mixer):
// the sequence section's tokens, the contact statements, the mention events
// and the coordinate section's tokens.
var Kind = &coordfront.Kind[Config]{Name: Name, Default: DefaultConfig, Validate: Config.Validate, Knobs: knobs,
	Columns: columns, MixClasses: []string{format.MixSequence, format.MixContact, format.MixCoordinate, format.MixCoordinateTokens},
	NewGenerator: func() coordfront.Generator[Config] { return new(Generator) }}

// knobs are the format's options, applied to cfg and rotlib.
func knobs(cfg *Config, rotlib *string) []coordfront.Knob {
	return append(coordfront.CommonKnobs(&cfg.Front, rotlib),
		coordfront.Int("max_depth", &cfg.MaxDepth, "finest place emitted: 3 = ones (1 Å), 4 adds tenths"),
		coordfront.Float("noise_divisor", &cfg.NoiseDivisor, "mention noise sigma = bin width / this"),
		coordfront.Float("depth_kernel_epsilon", &cfg.DepthKernelEpsilon, "floor weight of the depth kernel"),
		coordfront.Bool("force_full_precision_first_event", &cfg.ForceFullPrecisionFirstEvent, "the first mention gets max_depth"),
	)
}

// columns are the reference's metadata_row after its document, with one
// depth{d}_count column per depth up to max_depth, less its sha1: the
// corpus's own sha1 column holds that, hashed by the shard's sink from the
// document's bytes as for every format that does not list it (the
// reference's generate_document does not hash either: its sha1 is a
// property, computed when the row is written).
func columns(cfg Config) []format.Column {
	i := func(n string) format.Column { return format.Column{Name: n, Type: format.Int64} }
	fl := func(n string) format.Column { return format.Column{Name: n, Type: format.Float64} }
	cols := []format.Column{{Name: "entry_id", Type: format.String}, i("seq_len"),
		{Name: "global_plddt", Type: format.Float64, Nullable: true}, i("start_index"), i("n_term_index"),
		i("c_term_index"), i("min_seq_separation"), i("num_contacts_eligible"), i("contacts_emitted"),
		i("num_eligible_atoms"), i("num_events"), i("num_distinct_atoms_mentioned"), i("max_depth")}
	for d := 1; d <= cfg.MaxDepth; d++ {
		cols = append(cols, i("depth"+strconv.Itoa(d)+"_count"))
	}
	return append(cols, fl("quat_w"), fl("quat_x"), fl("quat_y"), fl("quat_z"), fl("trans_x"), fl("trans_y"),
		fl("trans_z"), format.Column{Name: "truncated", Type: format.Bool}, i("num_tokens"))
}

// Write is the document of st as the row the format writes, or the reason
// it is filtered (coordfront.Generator).
func (g *Generator) Write(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg Config) (format.Result, string) {
	d, filtered := g.Generate(st, a, entryID, cfg)
	if d == nil {
		return format.Result{}, filtered
	}
	return format.Result{Document: d.Text, Values: d.Values(),
		Mix: []int64{int64(2*d.SeqLen + coordfront.TerminusTokens), int64(d.ContactsEmitted), int64(d.NumEvents),
			int64(d.CoordinateTokens)}}, ""
}

// Bad is the atom a ReasonNonFinite filter names.
func (g *Generator) Bad() *coordfront.BadAtom { return g.front.Bad() }

// Values is the metadata row aligned with the columns.
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
