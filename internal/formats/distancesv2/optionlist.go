package distancesv2

import (
	"sort"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// OptionList lists every key ParseOptions accepts with its default (the
// value in Defaults), sorted by key.
func OptionList() []format.Option {
	d := Defaults()
	i := strconv.Itoa
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	edges := make([]string, len(d.PLDDTBinEdges))
	for k, e := range d.PLDDTBinEdges {
		edges[k] = f(e)
	}
	list := []format.Option{
		{Key: "context_length", Default: i(d.ContextLength), Doc: "token budget of one document"},
		{Key: "contact_cutoff", Default: f(d.ContactCutoff), Doc: "contact distance cutoff, Å (inclusive)"},
		{Key: "min_separation", Default: i(d.MinSeparation), Doc: "smallest residue separation of a contact"},
		{Key: "long_range", Default: i(d.LongRange), Doc: "separation of a long-range contact"},
		{Key: "medium_range", Default: i(d.MediumRange), Doc: "separation of a medium-range contact"},
		{Key: "f_min", Default: f(d.FracMin), Doc: "low end of each contact list's uniform fraction"},
		{Key: "f_max", Default: f(d.FracMax), Doc: "high end of each contact list's uniform fraction"},
		{Key: "contact_rank_mean", Default: f(d.ContactRankMean), Doc: "gauss mean of contact ranks"},
		{Key: "contact_rank_std", Default: f(d.ContactRankStd), Doc: "gauss std of contact ranks"},
		{Key: "distance_rank_mean", Default: f(d.DistanceRankMean), Doc: "gauss mean of distance ranks"},
		{Key: "distance_rank_std", Default: f(d.DistanceRankStd), Doc: "gauss std of distance ranks"},
		{Key: "residue_plddt_min", Default: f(d.ResiduePLDDTMin), Doc: "contact pool's residue pLDDT minimum"},
		{Key: "plddt_bin_edges", Default: strings.Join(edges, ","), Doc: "pLDDT token bin edges, ascending"},
		{Key: "think_p", Default: f(d.ThinkP), Doc: "geometric p of the first think run"},
		{Key: "think_prob", Default: f(d.ThinkProb), Doc: "probability of a first think run"},
		{Key: "k2_min", Default: f(d.ExtraRunsMin), Doc: "low end of the uniform number of extra runs"},
		{Key: "k2_max", Default: f(d.ExtraRunsMax), Doc: "high end of the uniform number of extra runs"},
		{Key: "run_p", Default: f(d.ExtraRunP), Doc: "geometric p of each extra run"},
		{Key: "distance_bin_width", Default: f(d.DistanceBinWidth), Doc: "distance bin width, Å"},
		{Key: "distance_bins", Default: i(d.DistanceBins), Doc: "number of distance bins"},
		{Key: "distance_min_sep", Default: i(d.DistanceMinSep), Doc: "distance statements need j - i > this"},
		{Key: "distance_redraws", Default: i(d.DistanceRedraws), Doc: "redraws of a too-close distance pair"},
		{Key: "plddt_at_end_prob", Default: f(d.PLDDTAtEndProb), Doc: "probability that the pLDDT token goes last"},
		{Key: "require_single_chain", Default: strconv.FormatBool(d.RequireSingleChain), Doc: "filter multi-chain structures (false: take the first polymer chain)"},
	}
	sort.Slice(list, func(a, b int) bool { return list[a].Key < list[b].Key })
	return list
}

// Spec registers contacts-and-distances-v2 (format.Spec): the registry's
// one line for this format.
func Spec() format.Spec {
	return format.Spec{Name: Name, Input: format.FromStructure, Options: OptionList, New: format.OptionsOnly(NewFromOptions)}
}
