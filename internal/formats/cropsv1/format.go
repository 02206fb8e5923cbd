// Package cropsv1 is MarinFold's contacts-and-crops-v1 document format:
// contacts-v1's sequence section and a random sample of its contacts, then,
// in a randomly rotated and placed 1000 Å cube, a coarse 10 Å box for
// atoms drawn across the structure (Pass 1) and 0.1 Å detail inside a few
// spatial crops (Pass 2), in 8,192 tokens; byte-identical to the reference
// generator
// (../shared/formats/contacts-and-coordinates-crops-notes.md).
//
// The contact degrees are ConFind's, computed in the shard from the same
// structure (Format.Analyze); the document is then a pure function of the
// structure, the analysis, the entry id (the seed) and the options.
package cropsv1

import (
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Name is the format's registry name.
const Name = "contacts-and-crops-v1"

// Format is the contacts-and-crops-v1 format: coordfront.Format, the
// wrapper both coordinate formats share.
type Format = coordfront.Format[Config]

// Kind is the format's part of coordfront.Format, and its constructors:
// Kind.Spec (the registry's line), Kind.New, Kind.Configure and
// Kind.OptionList. Its MixClasses name Result.Mix's counts (format.Mixer):
// the sequence section's tokens, the contact statements, the Pass-1
// mentions, the coordinate section's tokens, the crops and the atoms in
// them.
var Kind = &coordfront.Kind[Config]{Name: Name, Default: DefaultConfig, Validate: Config.Validate, Knobs: knobs,
	Columns: columns, MixClasses: []string{format.MixSequence, format.MixContact, format.MixCoordinate, format.MixCoordinateTokens,
		format.MixCrop, format.MixCropAtom},
	NewGenerator: func() coordfront.Generator[Config] { return new(Generator) }}

// knobs are the format's options, applied to cfg and rotlib.
func knobs(cfg *Config, rotlib *string) []coordfront.Knob {
	return append(coordfront.CommonKnobs(&cfg.Front, rotlib),
		coordfront.Int("fine_reserve", &cfg.FineReserve, "tokens held back from Pass 1 for the crops"),
		coordfront.Float("pass1_box_noise_sigma", &cfg.Pass1Sigma, "Pass-1 box noise, Å"),
		coordfront.Float("pass2_select_random", &cfg.SelectRandom, "probability of a random atom's box"),
		coordfront.Float("pass2_select_frontier", &cfg.SelectFrontier, "probability of a frontier box (re-show: the rest)"),
		coordfront.Float("pass2_refine_noise_base", &cfg.RefineNoiseBase, "crop noise on a box's i-th read: base/(i+1)^2, Å"),
		coordfront.Float("pass2_keep_prob", &cfg.KeepProb, "keep probability of a crop member"),
	)
}

// columns are the reference's metadata_row after its document, less its
// sha1: the corpus's own sha1 column holds that, hashed by the shard's
// sink from the document's bytes as for every format that does not list
// it (the reference's generate_document does not hash either: its sha1 is
// a property, computed when the row is written).
func columns(cfg Config) []format.Column {
	i := func(n string) format.Column { return format.Column{Name: n, Type: format.Int64} }
	fl := func(n string) format.Column { return format.Column{Name: n, Type: format.Float64} }
	return []format.Column{{Name: "entry_id", Type: format.String}, i("seq_len"),
		{Name: "global_plddt", Type: format.Float64, Nullable: true}, i("start_index"), i("n_term_index"),
		i("c_term_index"), i("min_seq_separation"), i("num_contacts_eligible"), i("contacts_emitted"),
		i("num_eligible_atoms"), i("num_pass1_mentions"), i("num_crops"), i("num_empty_crops"),
		i("num_distinct_crop_boxes"), i("crop_atoms_emitted"), i("max_box_visits"),
		fl("quat_w"), fl("quat_x"), fl("quat_y"), fl("quat_z"), fl("trans_x"), fl("trans_y"), fl("trans_z"),
		{Name: "truncated", Type: format.Bool}, i("num_tokens")}
}

// Write is the document of st as the row the format writes, or the reason
// it is filtered (coordfront.Generator).
func (g *Generator) Write(st *structure.Structure, a *contactsv1.Analysis, entryID string, cfg Config) (format.Result, string) {
	d, filtered := g.Generate(st, a, entryID, cfg)
	if d == nil {
		return format.Result{}, filtered
	}
	return format.Result{Document: d.Text, Values: d.Values(),
		Mix: []int64{int64(2*d.SeqLen + coordfront.TerminusTokens), int64(d.ContactsEmitted), int64(d.NumPass1Mentions),
			int64(pass1Mention*d.NumPass1Mentions + cropHeader*d.NumCrops + cropAtom*d.CropAtomsEmitted),
			int64(d.NumCrops), int64(d.CropAtomsEmitted)}}, ""
}

// Bad is the atom a ReasonNonFinite filter names.
func (g *Generator) Bad() *coordfront.BadAtom { return g.front.Bad() }

// Values is the metadata row aligned with the columns.
func (d *Document) Values() []any {
	return []any{d.EntryID, int64(d.SeqLen), coordfront.FloatOrNil(d.GlobalPLDDT), int64(d.StartIndex), int64(d.NTermIndex),
		int64(d.CTermIndex), int64(d.MinSeqSeparation), int64(d.NumContactsEligible), int64(d.ContactsEmitted),
		int64(d.NumEligibleAtoms), int64(d.NumPass1Mentions), int64(d.NumCrops), int64(d.NumEmptyCrops),
		int64(d.NumDistinctCropBoxes), int64(d.CropAtomsEmitted), int64(d.MaxBoxVisits),
		d.Quat[0], d.Quat[1], d.Quat[2], d.Quat[3], d.Trans[0], d.Trans[1], d.Trans[2],
		d.Truncated, int64(d.NumTokens)}
}
