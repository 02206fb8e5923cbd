package bio2token

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

func atom(name string, x float64, alt byte) structure.Atom {
	el := name[:1]
	return structure.Atom{Name: name, Element: el, AltLoc: alt, X: x, Y: 2 * x, Z: -x}
}

func TestAdapt(t *testing.T) {
	s := &structure.Structure{Name: "t", Models: []structure.Model{
		{Chains: []structure.Chain{
			{Name: "A", Residues: []structure.Residue{
				// Side chain before backbone in the file, a hydrogen, an altloc
				// duplicate of CB, an OXT: canonical order keeps N CA C O CB.
				{Name: "ALA", Atoms: []structure.Atom{atom("CB", 5, 'A'), atom("H", 9, 0), atom("CB", 7, 'B'), atom("N", 1, 0), atom("CA", 2, 0), atom("C", 3, 0), atom("O", 4, 0), atom("OXT", 8, 0)}},
				{Name: "HOH", Atoms: []structure.Atom{atom("O", 50, 0)}},
				{Name: "MSE", Atoms: []structure.Atom{atom("N", 60, 0), atom("SE", 61, 0)}},
				{Name: "SEC", Atoms: []structure.Atom{atom("N", 10, 0), atom("SE", 11, 0)}}, // CA, C, O, CB missing
			}},
			{Name: "B", Residues: []structure.Residue{
				{Name: "U", Atoms: []structure.Atom{atom("C1'", 20, 0), atom("P", 21, 0), atom("N1", 22, 0)}},
				{Name: "DA", Atoms: []structure.Atom{atom("P", 70, 0)}},
			}},
		}},
		{Chains: []structure.Chain{{Name: "A", Residues: []structure.Residue{{Name: "GLY", Atoms: []structure.Atom{atom("N", 99, 0)}}}}}},
	}}
	in, err := Adapt(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ALA", "SEC", "U"}; !reflect.DeepEqual(in.ResNames, want) {
		t.Errorf("ResNames = %v, want %v", in.ResNames, want)
	}
	if want := []string{"N", "CA", "C", "O", "CB", "N", "SE", "P", "C1'", "N1"}; !reflect.DeepEqual(in.AtomNames, want) {
		t.Errorf("AtomNames = %v, want %v", in.AtomNames, want)
	}
	if want := []int32{0, 0, 0, 0, 0, 1, 1, 2, 2, 2}; !reflect.DeepEqual(in.AtomRes, want) {
		t.Errorf("AtomRes = %v, want %v", in.AtomRes, want)
	}
	if got := in.Sequence(); got != "AUU" {
		t.Errorf("Sequence() = %q, want AUU", got)
	}
	xs := []float64{1, 2, 3, 4, 5, 10, 11, 21, 20, 22} // first CB record (altloc A) kept
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for i, x := range xs {
		want := [3]float32{float32(x - mean), float32(2*x - 2*mean), float32(-x + mean)}
		got := [3]float32{in.Coords[3*i], in.Coords[3*i+1], in.Coords[3*i+2]}
		if got != want {
			t.Errorf("atom %d coords = %v, want %v", i, got, want)
		}
	}
}

func TestAdaptErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *structure.Structure
	}{
		{"nil", nil},
		{"no model", &structure.Structure{Name: "x"}},
		{"only ligands", &structure.Structure{Name: "x", Models: []structure.Model{{Chains: []structure.Chain{{Residues: []structure.Residue{{Name: "HOH", Atoms: []structure.Atom{atom("O", 1, 0)}}}}}}}}},
		{"residue without atoms", &structure.Structure{Name: "x", Models: []structure.Model{{Chains: []structure.Chain{{Residues: []structure.Residue{{Name: "ALA"}}}}}}}},
	} {
		if _, err := Adapt(tc.s); err == nil {
			t.Errorf("Adapt(%s) succeeded, want an error", tc.name)
		}
	}
}

// TestConventionsMatchJSON checks the transcribed tables against the spec's JSON.
func TestConventionsMatchJSON(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "..", "formats", "bio2token-atom-conventions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var conv struct {
		AminoAcidAbbrs map[string]string   `json:"amino_acid_abbrs"`
		RNAAbbrs       map[string]string   `json:"rna_abbrs"`
		BackboneAA     []string            `json:"backbone_atoms_aa"`
		BackboneRNA    []string            `json:"backbone_atoms_rna"`
		SidechainAA    map[string][]string `json:"sidechain_atoms_aa"`
		SidechainRNA   map[string][]string `json:"sidechain_atoms_rna"`
	}
	if err := json.Unmarshal(data, &conv); err != nil {
		t.Fatal(err)
	}
	aa := map[string]byte{}
	for one, three := range conv.AminoAcidAbbrs {
		aa[three] = one[0]
	}
	rna := map[string]byte{}
	for one, name := range conv.RNAAbbrs {
		rna[name] = one[0]
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"amino acids", aminoAcids, aa}, {"rna", rnaNames, rna},
		{"backbone aa", backboneAA, conv.BackboneAA}, {"backbone rna", backboneRNA, conv.BackboneRNA},
		{"sidechain aa", sidechainAA, conv.SidechainAA}, {"sidechain rna", sidechainRNA, conv.SidechainRNA},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: transcribed %v, JSON %v", c.name, c.got, c.want)
		}
	}
	if len(atom37) != 37 || len(residue20) != 20 {
		t.Errorf("vocabulary: %d atoms, %d residues; want 37, 20", len(atom37), len(residue20))
	}
	if VocabularySize != 6859 {
		t.Errorf("VocabularySize = %d, want 6859", VocabularySize)
	}
	for name := range atom37 {
		if strings.HasPrefix(name, "H") {
			t.Errorf("atom vocabulary has hydrogen %q", name)
		}
	}
}
