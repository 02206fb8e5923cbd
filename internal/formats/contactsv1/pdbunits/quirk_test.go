package pdbunits

import (
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/curation"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

func TestConfindChain(t *testing.T) {
	for in, want := range map[string]string{"A": "A", "AB": "AB", "A10": "A1", "AB2": "AB", " ": "_", "": "_", " B ": "B", "éàü": "éà"} {
		if got := confindChain(in); got != want {
			t.Errorf("confindChain(%q) = %q, want %q", in, got, want)
		}
	}
	kept := func(names ...string) []curation.Chain {
		var out []curation.Chain
		for _, n := range names {
			out = append(out, curation.Chain{ChainID: n})
		}
		return out
	}
	for _, tc := range []struct {
		names []string
		want  Quirk
	}{
		{[]string{"A1", "B1"}, Quirk{}},
		{[]string{"AB1", "AC1"}, Quirk{Cut: true}},
		{[]string{"A1", "A10"}, Quirk{Cut: true, Merged: true}},
		{[]string{"AB", "AB1"}, Quirk{Cut: true, Merged: true}},
	} {
		if got := quirkOf(kept(tc.names...)); got != tc.want {
			t.Errorf("quirkOf(%v) = %+v, want %+v", tc.names, got, tc.want)
		}
	}
}

func TestDistinctNames(t *testing.T) {
	var chains []structure.Chain
	for i := 0; i < 70; i++ {
		chains = append(chains, structure.Chain{Name: "A" + string(rune('0'+i%10)) + string(rune('0'+i/10))})
	}
	st := &structure.Structure{Name: "X", Models: []structure.Model{{Num: 1, Chains: chains}}}
	cp, back, err := distinctNames(st)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, c := range cp.Models[0].Chains {
		if confindChain(c.Name) != c.Name || seen[c.Name] {
			t.Fatalf("chain %d renamed %q: not a distinct 2-character name", i, c.Name)
		}
		seen[c.Name] = true
		if back[c.Name] != chains[i].Name {
			t.Errorf("chain %d: %q maps back to %q, want %q", i, c.Name, back[c.Name], chains[i].Name)
		}
	}
	if st.Models[0].Chains[0].Name != "A00" {
		t.Error("distinctNames changed its input")
	}
}

// TestChainIDQuirk counts the golden multimers exp222's 2-character chain
// names touched (kept by default), and checks the corrected documents
// (FixChainIDs) by their own invariants: every curated chain on the ring
// once, under its curated name, with its entity; documents the quirk did
// not touch are unchanged.
func TestChainIDQuirk(t *testing.T) {
	corpus, sets := goldenSets(t)
	lib := miniLib(t)
	touched, merged, corrected := map[string]Quirk{}, 0, 0
	for _, set := range sets {
		clusters, err := ReadClustersFile(set.Clusters())
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range readGolden(t, set.Path()) {
			if g.EntryFilter != "selected" {
				continue
			}
			res, meta := curated(t, corpus, g)
			if res.Multimer == nil {
				continue
			}
			opt := Options{Library: lib, Clusters: clusters, MaxChains: 60}
			def, err := Build(res, meta, opt)
			if err != nil {
				t.Fatal(err)
			}
			opt.FixChainIDs = true
			fix, err := Build(res, meta, opt)
			if err != nil {
				t.Fatal(err)
			}
			du, fu := def.Units[len(def.Units)-1], fix.Units[len(fix.Units)-1]
			if !du.Quirk.Touched() {
				if fu.Quirk.Corrected || !reflect.DeepEqual(du.Row.Values(), fu.Row.Values()) || du.Row.Doc.Text != fu.Row.Doc.Text {
					t.Errorf("%s: FixChainIDs changed a document the quirk did not touch", g.PDBID)
				}
				continue
			}
			touched[g.PDBID] = du.Quirk
			if du.Quirk.Merged {
				merged++
			}
			if !fu.Quirk.Corrected || fu.Outcome != OutcomeDocument {
				t.Errorf("%s: corrected outcome %s (corrected %v), want a document", g.PDBID, fu.Outcome, fu.Quirk.Corrected)
				continue
			}
			corrected++
			checkCorrected(t, g.PDBID, res, fu.Row)
		}
	}
	t.Logf("the 2-character chain names touched %d multimers (%d with merged chains): %v; %d corrected", len(touched), merged, touched, corrected)
	// 5i55 and the edge cases assembly_60, chain_id_2char and
	// chain_id_2char_collapse (the last has no document: collapsed_to_monomer).
	for _, id := range []string{"5i55", "edge_assembly_60", "edge_chain_id_2char", "edge_chain_id_2char_collapse"} {
		if q, ok := touched[id]; !ok || !q.Merged {
			t.Errorf("%s: quirk %+v, want merged chains", id, q)
		}
	}
}

// checkCorrected checks a corrected multimer row's invariants.
func checkCorrected(t *testing.T, id string, res *curation.Result, r *Row) {
	t.Helper()
	d := r.Doc
	var names, entities []string
	for _, k := range res.Assembly.Kept {
		names = append(names, k.ChainID)
		entities = append(entities, k.EntityID)
	}
	if !reflect.DeepEqual(d.ChainIDs, names) || !reflect.DeepEqual(r.ASUChainIDs, names) {
		t.Errorf("%s: chains %v (asu %v), want curation's %v, each once", id, d.ChainIDs, r.ASUChainIDs, names)
	}
	if !reflect.DeepEqual(r.EntityIDs, entities) {
		t.Errorf("%s: entity ids %v, want %v", id, r.EntityIDs, entities)
	}
	sum := int64(0)
	ring := map[int64]bool{}
	for i, l := range d.ChainLengths {
		if l < 1 || l > int64(res.Assembly.Kept[i].Residues) {
			t.Errorf("%s: chain %s has %d residues on the ring, curation %d", id, names[i], l, res.Assembly.Kept[i].Residues)
		}
		sum += l
		for p := int64(0); p < l; p++ {
			idx := (d.NTermIndices[i] + p) % 2000
			if ring[idx] {
				t.Errorf("%s: ring index %d used twice", id, idx)
			}
			ring[idx] = true
		}
		if want := (d.NTermIndices[i] + l - 1) % 2000; d.CTermIndices[i] != want {
			t.Errorf("%s: chain %s c-term %d, want %d", id, names[i], d.CTermIndices[i], want)
		}
	}
	if sum != int64(d.SeqLen) || len(r.Analysis.ResChain) != d.SeqLen {
		t.Errorf("%s: chain lengths sum to %d, seq_len %d", id, sum, d.SeqLen)
	}
}
