package distancesv2

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif/gemmitest"
)

var (
	gemmiOutcomeCases = flag.Int("gemmi.cases", 300, "generated structures TestOutcomeAgreesWithGemmi runs")
	gemmiOutcomeFor   = flag.Duration("gemmi.for", 0, "keep TestOutcomeAgreesWithGemmi generating batches this long (overrides -gemmi.cases)")
	gemmiOutcomeSeed  = flag.Uint64("gemmi.seed", 5000, "first seed of TestOutcomeAgreesWithGemmi")
)

// TestOutcomeAgreesWithGemmi generates random structures (gemmitest:
// altlocs, microheterogeneity, insertion codes, missing or wrong _entity,
// ligands, waters, several models, HETATM and unknown residues) and checks
// that the outcome for each is the one gemmi's reading implies under the
// spec: the reference generator (internal/bench/cadv2_reference.py, on
// python3-gemmi 0.5.7, residue_plddt_min 70) runs on the same file at test
// time. Its chain errors are our filters ("no polymer chain" ->
// FilteredNoPolymer; "expected single polymer chain, found N" ->
// FilteredMultiChain, under the default require_single_chain), its other
// errors must be ours, a file it filters we filter for the same kind of
// reason (too short, no room), and a document must be byte-identical
// (sha1). The same holds with require_single_chain off, against the
// reference's read of model 1's first polymer chain.
func TestOutcomeAgreesWithGemmi(t *testing.T) {
	g := gemmitest.New(t)
	single := mustFormat(t, nil)
	first := mustFormat(t, map[string]string{"require_single_chain": "false"})
	counts := map[string]int{}
	c := gemmitest.Config{Cases: *gemmiOutcomeCases, For: *gemmiOutcomeFor, Seed: *gemmiOutcomeSeed}
	gemmitest.Run(t, g, c, func(p string, _ []byte, r gemmitest.Reading) []string {
		counts[r.CADV2.Outcome+" "+r.CADV2.Error]++
		counts["first chain: "+r.CADV2First.Outcome]++
		var d []string
		for _, k := range []struct {
			name string
			f    *Format
			want gemmitest.CADV2
		}{{"require_single_chain", single, r.CADV2}, {"first chain", first, r.CADV2First}} {
			got := runFile(k.f, p, filepath.Base(p))
			if !sameOutcome(got, k.want) {
				d = append(d, fmt.Sprintf("%s: ours %s (%s, %d residues, sha1 %s); gemmi's reading gives %+v",
					k.name, got.outcome, got.detail, got.nRes, got.sha1, k.want))
			}
		}
		return d
	})
	t.Logf("outcomes under gemmi's reading: %v", counts)
	for _, o := range []string{"document ", "error no polymer chain", "filtered ", "error expected single polymer chain, found 2"} {
		if counts[o] == 0 {
			t.Errorf("no generated file has outcome %q: the generator lost its variety (%v)", o, counts)
		}
	}
}

// sameOutcome reports whether our outcome is the reference's: its chain
// errors are our filters ("no polymer chain" -> FilteredNoPolymer;
// "expected single polymer chain, found N" -> FilteredMultiChain), its other
// errors must be ours, a file it filters we filter for the same kind of
// reason, and a document must be byte-identical.
func sameOutcome(got fileOutcome, want gemmitest.CADV2) bool {
	switch {
	case want.Outcome == "error" && want.Error == "no polymer chain":
		return got.outcome == "filtered" && got.detail == FilteredNoPolymer
	case want.Outcome == "error" && strings.HasPrefix(want.Error, "expected single polymer chain, found "):
		return got.outcome == "filtered" && got.detail == FilteredMultiChain
	case want.Outcome == "error":
		return got.outcome == "error" && strings.Contains(got.detail, want.Error)
	case want.Outcome == "filtered":
		return got.outcome == "filtered" && (got.detail == FilteredTooShort || got.detail == FilteredNoRoom)
	case want.Outcome == "document":
		return got.outcome == "document" && got.sha1 == want.SHA1 && got.nRes == want.NResidues
	}
	return false
}
