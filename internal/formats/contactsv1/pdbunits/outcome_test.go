package pdbunits

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/curation"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// record is an analysis of chains (name, residues) with no contacts.
func record(chains ...any) *contactsv1.Analysis {
	a := &contactsv1.Analysis{}
	for i := 0; i < len(chains); i += 2 {
		for r := 0; r < chains[i+1].(int); r++ {
			a.ResName = append(a.ResName, "ALA")
			a.ResNum = append(a.ResNum, int64(r+1))
			a.ResChain = append(a.ResChain, chains[i].(string))
		}
	}
	return a
}

// TestOutcomes: the units without a document get exp222's names in the
// ledger (monomer_failures, multimer_status, error), driven by analyses
// standing in for pyconfind's.
func TestOutcomes(t *testing.T) {
	st := &structure.Structure{Name: "1XYZ", Models: []structure.Model{{Num: 1}}}
	kept := []curation.Chain{{ChainID: "A", ASUChainID: "A", EntityID: "1", Residues: 5}, {ChainID: "B", ASUChainID: "B", EntityID: "1", Residues: 1},
		{ChainID: "C", ASUChainID: "C", EntityID: "2", Residues: 5}}
	res := &curation.Result{Name: "1XYZ", ASU: curation.Chains{Kept: kept}}
	for _, k := range kept {
		res.Monomers = append(res.Monomers, curation.Monomer{Chain: k, Structure: st})
	}
	res.Assembly = curation.Chains{Kept: []curation.Chain{{ChainID: "A1", EntityID: "1"}, {ChainID: "C1", EntityID: "2"}}}
	res.Multimer = st
	meta := Meta{PDBID: "1xyz", ReleaseDate: "2000-01-01", Method: "X-RAY DIFFRACTION"}
	for _, tc := range []struct {
		name      string
		multimer  func() (*contactsv1.Analysis, error)
		status    string
		errorText *string
	}{
		{"ok", func() (*contactsv1.Analysis, error) { return record("A1", 5, "C1", 5), nil }, "ok", nil},
		{"collapsed", func() (*contactsv1.Analysis, error) { return record("A1", 10), nil }, "collapsed_to_monomer", nil},
		{"unserializable", func() (*contactsv1.Analysis, error) { return record("A1", 1), nil }, "unserializable", nil},
		{"error", func() (*contactsv1.Analysis, error) {
			return nil, &confind.AnalysisError{Kind: confind.ErrNoNativeAtom, Msg: "index 0 is out of bounds"}
		}, "error", ptr("multimer: IndexError: index 0 is out of bounds")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			an := func(_ *structure.Structure, maxChains int) (*contactsv1.Analysis, error) {
				calls++
				switch calls {
				case 1:
					return record("A", 5), nil
				case 2:
					return record("B", 1), nil // one residue: unserializable
				case 3:
					return nil, &confind.AnalysisError{Kind: confind.ErrNoProtein, Msg: "1XYZ: no protein residues"}
				}
				if maxChains != 7 {
					t.Errorf("multimer analysed with max_chains %d, want 7", maxChains)
				}
				return tc.multimer()
			}
			got, err := build(res, meta, Options{Library: &confind.Library{}, MaxChains: 7}, an)
			if err != nil {
				t.Fatal(err)
			}
			want := curation.LedgerRow{PDBID: "1xyz", ASUChainsKept: 3, ASUDropReasons: []string{}, MonomerDocs: 1,
				MonomerFailures:    []string{"B: unserializable", "C: ValueError: 1XYZ: no protein residues"},
				AssemblyChainsKept: 2, AssemblyDropReasons: []string{}, MultimerStatus: tc.status, Error: tc.errorText}
			if !reflect.DeepEqual(got.Ledger, want) {
				t.Errorf("ledger\n got %+v\nwant %+v", got.Ledger, want)
			}
			if len(got.Units) != 4 || got.Units[0].Row == nil || got.Units[0].EntryID != "1xyz_A" || got.Units[3].EntryID != "1xyz_assembly1" {
				t.Fatalf("units %+v", got.Units)
			}
			if m := got.Units[3]; (m.Row != nil) != (tc.status == "ok") {
				t.Errorf("multimer row %v with status %s", m.Row != nil, tc.status)
			} else if m.Row != nil && (!reflect.DeepEqual(m.Row.EntityIDs, []string{"1", "2"}) || !reflect.DeepEqual(m.Row.ClusterIDs, []int64{-1, -1})) {
				t.Errorf("multimer entities %v clusters %v", m.Row.EntityIDs, m.Row.ClusterIDs)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// TestMaxChains: a multimer with more pyconfind chains than MaxChains is
// analyze_structure's ValueError, with exp222's message for that limit.
func TestMaxChains(t *testing.T) {
	corpus, sets := goldenSets(t)
	for _, g := range readGolden(t, filepath.Join(sets[0].Dir, sets[0].File)) {
		if g.PDBID != "1stp" {
			continue
		}
		res, meta := curated(t, corpus, g)
		got, err := Build(res, meta, Options{Library: miniLib(t), MaxChains: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := "multimer: ValueError: 1STP: found 4 protein chains (['A1', 'A2', 'A3', 'A4']) but max_chains=3. Raise max_chains to build a multi-chain document (see SPEC.md)."
		if got.Ledger.MultimerStatus != "error" || got.Ledger.Error == nil || *got.Ledger.Error != want {
			msg := "<nil>"
			if got.Ledger.Error != nil {
				msg = *got.Ledger.Error
			}
			t.Errorf("status %s, error %q; want status error, %q", got.Ledger.MultimerStatus, msg, want)
		}
		return
	}
	t.Fatal("1stp not in the golden file")
}
