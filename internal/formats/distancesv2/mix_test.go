package distancesv2

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// countMix counts a document's tokens by MixClasses from its text: the
// tokens between <begin_sequence> and <begin_statements>, each statement
// head and the <think> tokens.
func countMix(doc string) []int64 {
	heads := []string{"<long-range-contact>", "<medium-range-contact>", "<short-range-contact>", "<distance>", "<think>"}
	mix := make([]int64, 6)
	toks := strings.Split(doc, " ")
	b, e := slices.Index(toks, "<begin_sequence>"), slices.Index(toks, "<begin_statements>")
	mix[0] = int64(e - b - 1)
	for _, tok := range toks[e+1:] {
		if k := slices.Index(heads, tok); k >= 0 {
			mix[k+1]++
		}
	}
	return mix
}

// TestMixCountsTheDocument: the token mix the generator counts while it
// writes (Result.Mix, which the corpus report reads from the footers)
// equals the counts in the document text, for documents with statements of
// every kind and for documents with none (think tokens only).
func TestMixCountsTheDocument(t *testing.T) {
	f := mustFormat(t, nil)
	if got := f.MixClasses(); len(got) != 6 || got[0] != "sequence_tokens" || got[5] != "think_tokens" {
		t.Fatalf("MixClasses = %v", got)
	}
	var withNone, withThinkOnly int
	for _, tt := range []struct {
		n    int
		opts map[string]string
	}{
		{120, map[string]string{"residue_plddt_min": "0"}},
		{200, nil},
		{60, map[string]string{"residue_plddt_min": "0", "context_length": "1024"}},
		{40, map[string]string{"context_length": "50"}},
		{40, map[string]string{"context_length": "46"}},
	} {
		f := mustFormat(t, tt.opts)
		for seed := range 40 {
			id := fmt.Sprintf("AF-MIX%d-F1", seed)
			res, err := f.Generate(format.Input{EntryID: id, Structure: helix(tt.n, cycle)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Filtered != "" {
				if res.Mix != nil {
					t.Errorf("n=%d %v %s: filtered row has a mix %v", tt.n, tt.opts, id, res.Mix)
				}
				continue
			}
			want := countMix(res.Document)
			if !slices.Equal(res.Mix, want) {
				t.Errorf("n=%d %v %s: Mix = %v, the document has %v", tt.n, tt.opts, id, res.Mix, want)
			}
			if want[1]+want[2]+want[3]+want[4] == 0 {
				withNone++
				if want[5] > 0 {
					withThinkOnly++
				}
			}
		}
	}
	if withNone == 0 || withThinkOnly == 0 {
		t.Errorf("%d documents without statements, %d of them with think tokens: the table must cover both", withNone, withThinkOnly)
	}
}
