package coordfront

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// tiny is a one-chain structure with a residue per x coordinate, each with
// N, CA and C atoms (and a hydrogen, and an altloc double of CA that the
// join must drop).
func tiny(chain string, xs ...float64) *structure.Structure {
	var res []structure.Residue
	for i, x := range xs {
		res = append(res, structure.Residue{Name: "ALA", AuthSeq: i + 1, Entity: structure.EntityPolymer, Subchain: "A",
			Atoms: []structure.Atom{{Name: "N", Element: "N", X: x}, {Name: "CA", Element: "C", X: x + 1},
				{Name: "CA", Element: "C", AltLoc: 'B', X: x + 5}, {Name: "H", Element: "H", X: x}, {Name: "C", Element: "C", X: x + 2}}})
	}
	return &structure.Structure{Name: "T", Models: []structure.Model{{Num: 1, Chains: []structure.Chain{{Name: chain, Residues: res}}}}}
}

func analysis(chains ...string) *contactsv1.Analysis {
	a := &contactsv1.Analysis{EntryID: "T"}
	for i, c := range chains {
		a.ResName = append(a.ResName, "ALA")
		a.ResNum = append(a.ResNum, int64(i+1))
		a.ResChain = append(a.ResChain, c)
	}
	return a
}

// TestBuildFilters: each designed-in filter, in the reference's order,
// on small structures no corpus file exercises.
func TestBuildFilters(t *testing.T) {
	cfg := DefaultConfig(8192)
	small := cfg
	small.ContextLength = 11 // 2L+8 = 12 for two residues
	tests := []struct {
		name string
		st   *structure.Structure
		a    *contactsv1.Analysis
		cfg  Config
		want string
	}{
		{"no residues", tiny("A", 0, 4), analysis(), cfg, FilterNoProtein},
		{"two chains", tiny("A", 0, 4), analysis("A", "B"), cfg, FilterMultiChain},
		{"no atom joins", tiny("A", 0, 4), analysis("C", "C"), cfg, FilterNoAtomsJoin},
		{"one residue", tiny("A", 0, 4), analysis("A"), cfg, FilterTooShort},
		{"sequence over the context", tiny("A", 0, 4), analysis("A", "A"), small, FilterSequenceRoom},
		{"span over 980 Å", tiny("A", 0, 2000), analysis("A", "A"), cfg, FilterCube},
		{"blank chain joins as _", tiny(" ", 0, 4), analysis("_", "_"), cfg, ""},
		{"fits", tiny("A", 0, 4), analysis("A", "A"), cfg, ""},
	}
	for _, tt := range tests {
		f, got := Build(tt.st, tt.a, "T", tt.cfg)
		if got != tt.want {
			t.Errorf("%s: Build filtered %q, want %q", tt.name, got, tt.want)
			continue
		}
		if got == "" && (len(f.Placed) != 6 || f.Atoms.Name(1) != "CA" || f.Atoms.Coord[1][0] != 1) {
			t.Errorf("%s: atoms %v %v, want N CA C per residue, the first CA", tt.name, f.Atoms.Vocab, f.Atoms.Coord)
		}
	}
}

// TestDuplicateKeysShareAtoms: residues sharing (chain, number), as with
// insertion codes, all get the first gemmi residue's atoms.
func TestDuplicateKeysShareAtoms(t *testing.T) {
	st := tiny("A", 0, 10)
	st.Models[0].Chains[0].Residues[1].AuthSeq = 1 // the second residue repeats the first's key
	a := analysis("A", "A")
	a.ResNum[1] = 1
	atoms := JoinAtoms(st, a)
	if atoms.DuplicateKeys != 1 || len(atoms.Coord) != 6 || atoms.Coord[3] != atoms.Coord[0] || atoms.Res[3] != 1 {
		t.Errorf("JoinAtoms = %+v, want residue 1 with residue 0's atoms", atoms)
	}
}

// TestPutXYZ3: PutXYZ3 writes what k Puts of the same tokens write.
func TestPutXYZ3(t *testing.T) {
	for k := 1; k <= 3; k++ {
		var a, b Writer
		a.Tok("<x>")
		b.Tok("<x>")
		toks := []int{7, 999, 0}
		a.PutXYZ3(toks[0], toks[1], toks[2], k)
		for _, i := range toks[:k] {
			b.Put(XYZ16(i))
		}
		b.Put(Position16(12345)) // beyond the table
		a.Put(Position16(12345))
		if string(a.Buf) != string(b.Buf) || a.Tokens != b.Tokens {
			t.Errorf("k=%d: PutXYZ3 wrote %q (%d tokens), Puts %q (%d)", k, a.Buf, a.Tokens, b.Buf, b.Tokens)
		}
	}
}
