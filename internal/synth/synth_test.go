package synth

import (
	"bytes"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

func TestMakeReadsAndGenerates(t *testing.T) {
	f, err := distancesv2.NewFromOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	var contacts int64
	for _, tc := range []struct{ i, min, max int }{{0, 40, 40}, {1, 40, 260}, {2, 300, 300}, {3, 20, 60}} {
		p := Make(1, tc.i, tc.min, tc.max)
		if n := len(p.Residues); n < tc.min || n > tc.max {
			t.Errorf("Make(%d) has %d residues, want %d..%d", tc.i, n, tc.min, tc.max)
		}
		if q := Make(1, tc.i, tc.min, tc.max); !bytes.Equal(p.CIF, q.CIF) {
			t.Errorf("Make(%d) is not deterministic", tc.i)
		}
		st, err := mmcif.Read(p.CIF)
		if err != nil {
			t.Fatalf("mmcif.Read(synthetic %d): %v", tc.i, err)
		}
		if got := len(st.Models[0].Chains[0].Polymer()); got != len(p.Residues) {
			t.Errorf("synthetic %d: polymer has %d residues, want %d", tc.i, got, len(p.Residues))
		}
		res, err := f.Generate(formatInput(p.EntryID, st))
		if err != nil {
			t.Fatalf("generate(synthetic %d): %v", tc.i, err)
		}
		if res.Filtered != "" || res.Document == "" {
			t.Fatalf("synthetic %d: filtered %q", tc.i, res.Filtered)
		}
		contacts += res.Values[2].(int64)
	}
	if contacts == 0 {
		t.Errorf("no contacts emitted over all synthetic proteins: the geometry has none")
	}
}
