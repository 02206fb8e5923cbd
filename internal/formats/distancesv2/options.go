package distancesv2

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Options are the generator's knobs. Defaults returns the reference
// generator's values; a zero Options is not valid.
type Options struct {
	ContextLength    int     // token budget of one document (8192)
	ContactCutoff    float64 // Å, inclusive (8.0)
	MinSeparation    int     // smallest residue separation of a contact (6)
	LongRange        int     // separation of a long-range contact (24)
	MediumRange      int     // separation of a medium-range contact (12)
	FracMin, FracMax float64 // uniform range of each contact list's fraction (-0.1, 0.2)
	ContactRankMean  float64 // gauss mean of contact ranks (2.0)
	ContactRankStd   float64 // gauss std of contact ranks (1.0)
	DistanceRankMean float64 // gauss mean of distance ranks (0.0)
	DistanceRankStd  float64 // gauss std of distance ranks (1.0)
	ResiduePLDDTMin  float64 // contact pool's residue pLDDT minimum (70)
	PLDDTBinEdges    []float64
	ThinkP           float64 // geometric p of the first think run (0.13)
	ThinkProb        float64 // probability of a first think run (0.75)
	ExtraRunsMin     float64 // uniform range whose int part is the number of extra runs (-4)
	ExtraRunsMax     float64 // (4)
	ExtraRunP        float64 // geometric p of each extra run (0.25)
	DistanceBinWidth float64 // Å (0.5)
	DistanceBins     int     // number of distance bins (64)
	DistanceMinSep   int     // distance statements need j - i > this (1)
	DistanceRedraws  int     // redraws of a too-close distance pair (10)
	PLDDTAtEndProb   float64 // probability that the pLDDT token goes last (0.5)
	// RequireSingleChain filters structures with more than one polymer
	// chain (true); false takes the first polymer chain (the reference's
	// require_single_chain knob).
	RequireSingleChain bool
}

// Defaults returns the reference generator's settings.
func Defaults() Options {
	return Options{
		ContextLength:    8192,
		ContactCutoff:    8.0,
		MinSeparation:    6,
		LongRange:        24,
		MediumRange:      12,
		FracMin:          -0.1,
		FracMax:          0.2,
		ContactRankMean:  2.0,
		ContactRankStd:   1.0,
		DistanceRankMean: 0.0,
		DistanceRankStd:  1.0,
		ResiduePLDDTMin:  70,
		PLDDTBinEdges:    []float64{70, 75, 80, 85, 90, 95},
		ThinkP:           0.13,
		ThinkProb:        0.75,
		ExtraRunsMin:     -4,
		ExtraRunsMax:     4,
		ExtraRunP:        0.25,
		DistanceBinWidth: 0.5,
		DistanceBins:     64,
		DistanceMinSep:   1,
		DistanceRedraws:  10,
		PLDDTAtEndProb:   0.5,

		RequireSingleChain: true,
	}
}

// optionSetters maps each option key of ParseOptions to its field.
var optionSetters = map[string]func(o *Options, v string) error{
	"context_length":     intOpt(func(o *Options) *int { return &o.ContextLength }),
	"contact_cutoff":     floatOpt(func(o *Options) *float64 { return &o.ContactCutoff }),
	"min_separation":     intOpt(func(o *Options) *int { return &o.MinSeparation }),
	"long_range":         intOpt(func(o *Options) *int { return &o.LongRange }),
	"medium_range":       intOpt(func(o *Options) *int { return &o.MediumRange }),
	"f_min":              floatOpt(func(o *Options) *float64 { return &o.FracMin }),
	"f_max":              floatOpt(func(o *Options) *float64 { return &o.FracMax }),
	"contact_rank_mean":  floatOpt(func(o *Options) *float64 { return &o.ContactRankMean }),
	"contact_rank_std":   floatOpt(func(o *Options) *float64 { return &o.ContactRankStd }),
	"distance_rank_mean": floatOpt(func(o *Options) *float64 { return &o.DistanceRankMean }),
	"distance_rank_std":  floatOpt(func(o *Options) *float64 { return &o.DistanceRankStd }),
	"residue_plddt_min":  floatOpt(func(o *Options) *float64 { return &o.ResiduePLDDTMin }),
	"think_p":            floatOpt(func(o *Options) *float64 { return &o.ThinkP }),
	"think_prob":         floatOpt(func(o *Options) *float64 { return &o.ThinkProb }),
	"k2_min":             floatOpt(func(o *Options) *float64 { return &o.ExtraRunsMin }),
	"k2_max":             floatOpt(func(o *Options) *float64 { return &o.ExtraRunsMax }),
	"run_p":              floatOpt(func(o *Options) *float64 { return &o.ExtraRunP }),
	"distance_bin_width": floatOpt(func(o *Options) *float64 { return &o.DistanceBinWidth }),
	"distance_bins":      intOpt(func(o *Options) *int { return &o.DistanceBins }),
	"distance_min_sep":   intOpt(func(o *Options) *int { return &o.DistanceMinSep }),
	"distance_redraws":   intOpt(func(o *Options) *int { return &o.DistanceRedraws }),
	"plddt_at_end_prob":  floatOpt(func(o *Options) *float64 { return &o.PLDDTAtEndProb }),
	"require_single_chain": func(o *Options, v string) error {
		x, err := strconv.ParseBool(strings.TrimSpace(v))
		o.RequireSingleChain = x
		return err
	},
	"plddt_bin_edges": func(o *Options, v string) error {
		var edges []float64
		for _, f := range strings.Split(v, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return err
			}
			edges = append(edges, x)
		}
		o.PLDDTBinEdges = edges
		return nil
	},
}

func intOpt(field func(o *Options) *int) func(o *Options, v string) error {
	return func(o *Options, v string) error {
		x, err := strconv.Atoi(strings.TrimSpace(v))
		*field(o) = x
		return err
	}
}

func floatOpt(field func(o *Options) *float64) func(o *Options, v string) error {
	return func(o *Options, v string) error {
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		*field(o) = x
		return err
	}
}

// OptionKeys lists the keys ParseOptions accepts, sorted.
func OptionKeys() []string {
	keys := make([]string, 0, len(optionSetters))
	for k := range optionSetters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ParseOptions returns Defaults with the given knobs set, e.g.
// {"residue_plddt_min": "0"}. Unknown keys and unparsable or invalid
// values are errors.
func ParseOptions(kv map[string]string) (Options, error) {
	o := Defaults()
	for k, v := range kv {
		set, ok := optionSetters[k]
		if !ok {
			return o, fmt.Errorf("contacts-and-distances-v2: unknown option %q (known: %s)", k, strings.Join(OptionKeys(), ", "))
		}
		if err := set(&o, v); err != nil {
			return o, fmt.Errorf("contacts-and-distances-v2: option %s=%q: %w", k, v, err)
		}
	}
	return o, o.Validate()
}

// Validate reports settings the generator cannot run with.
func (o Options) Validate() error {
	switch {
	case o.ContextLength <= 0:
		return fmt.Errorf("contacts-and-distances-v2: context_length %d must be positive", o.ContextLength)
	case o.DistanceBins < 1 || o.DistanceBinWidth <= 0:
		return fmt.Errorf("contacts-and-distances-v2: distance bins %d x %g must be positive", o.DistanceBins, o.DistanceBinWidth)
	case !(o.ThinkP > 0 && o.ThinkP <= 1) || !(o.ExtraRunP > 0 && o.ExtraRunP <= 1):
		return fmt.Errorf("contacts-and-distances-v2: think_p %g and run_p %g must be in (0, 1]", o.ThinkP, o.ExtraRunP)
	case o.MinSeparation < 1 || o.DistanceRedraws < 0:
		return fmt.Errorf("contacts-and-distances-v2: min_separation %d must be >= 1, distance_redraws %d >= 0", o.MinSeparation, o.DistanceRedraws)
	case !sort.Float64sAreSorted(o.PLDDTBinEdges):
		return fmt.Errorf("contacts-and-distances-v2: plddt_bin_edges %v must be ascending", o.PLDDTBinEdges)
	}
	return nil
}
