package structure

import (
	"testing"
)

func res(name, sub string, seq int, e EntityType, atoms ...Atom) Residue {
	return Residue{Name: name, Subchain: sub, LabelSeq: seq, Entity: e, Atoms: atoms}
}

func TestPolymer(t *testing.T) {
	P, N, W := EntityPolymer, EntityNonPolymer, EntityWater
	tests := []struct {
		name       string
		res        []Residue
		start, len int
	}{
		{"all polymer", []Residue{res("ALA", "A", 1, P), res("GLY", "A", 2, P)}, 0, 2},
		{"ligand first", []Residue{res("HEM", "B", 0, N), res("ALA", "A", 1, P), res("GLY", "A", 2, P), res("HOH", "C", 0, W)}, 1, 2},
		{"stops at subchain change", []Residue{res("ALA", "A", 1, P), res("GLY", "B", 1, P)}, 0, 1},
		{"none", []Residue{res("HOH", "C", 0, W)}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Chain{Name: "A", Residues: tc.res}
			p := c.Polymer()
			if len(p) != tc.len || (tc.len > 0 && &p[0] != &c.Residues[tc.start]) {
				t.Fatalf("got %d residues", len(p))
			}
		})
	}
}

func TestPrincipalChain(t *testing.T) {
	m := Model{Chains: []Chain{{Name: "T"}, {Name: "A"}}}
	if got := m.PrincipalChain().Name; got != "A" {
		t.Errorf("got %q, want A", got)
	}
	m = Model{Chains: []Chain{{Name: "U"}, {Name: "P"}}}
	if got := m.PrincipalChain().Name; got != "U" {
		t.Errorf("got %q, want U", got)
	}
	if (&Model{}).PrincipalChain() != nil {
		t.Error("empty model should have no principal chain")
	}
}

func TestContacts(t *testing.T) {
	at := func(name string, x float64) Atom { return Atom{Name: name, X: x} }
	// residues on a line, 1 Å apart via CB (CA for GLY); one without CB
	var rs []Residue
	for i := 1; i <= 12; i++ {
		name, atom := "ALA", "CB"
		if i%4 == 0 {
			name, atom = "GLY", "CA"
		}
		rs = append(rs, res(name, "A", i, EntityPolymer, at("N", 100), at(atom, float64(i))))
	}
	rs[4].Atoms = rs[4].Atoms[:1] // residue 5 lacks CB
	cs, skipped := Contacts(rs, 7.0, 6)
	if len(skipped) != 1 || skipped[0] != 4 {
		t.Fatalf("skipped %v, want [4]", skipped)
	}
	// pairs with |i-j| >= 6 and distance |i-j| < 7: only |i-j| == 6
	var want []Contact
	for i := 1; i+6 <= 12; i++ {
		if i != 5 && i+6 != 5 {
			want = append(want, Contact{I: i, J: i + 6, D: 6})
		}
	}
	if len(cs) != len(want) {
		t.Fatalf("got %v, want %v", cs, want)
	}
	for k := range cs {
		if cs[k] != want[k] {
			t.Errorf("contact %d: %v, want %v", k, cs[k], want[k])
		}
	}
	// strict cutoff: at exactly 6 Å nothing is in contact
	if cs, _ := Contacts(rs, 6.0, 6); len(cs) != 0 {
		t.Errorf("cutoff is strict, got %v", cs)
	}
}

func TestSeqNumbers(t *testing.T) {
	r := func(lseq, auth int, icode byte) Residue { return Residue{LabelSeq: lseq, AuthSeq: auth, ICode: icode} }
	tests := []struct {
		name string
		res  []Residue
		want []int
	}{
		{"label_seq_id kept", []Residue{r(3, 10, 0), r(4, 11, 0), r(7, 14, 0)}, []int{3, 4, 7}},
		{"one without among others keeps 0", []Residue{r(1, 10, 0), r(0, 11, 0), r(3, 12, 0)}, []int{1, 0, 3}},
		{"none: positions from 1", []Residue{r(0, -3, 0), r(0, 5, 0), r(0, 6, 0)}, []int{1, 2, 3}},
		{"none: insertion codes are positions", []Residue{r(0, 5, 0), r(0, 5, 'A'), r(0, 5, 'B'), r(0, 6, 0)}, []int{1, 2, 3, 4}},
		{"none: alternatives at one position share it", []Residue{r(0, 5, 0), r(0, 6, 0), r(0, 6, 0), r(0, 7, 'a'), r(0, 7, 'A')}, []int{1, 2, 2, 3, 3}},
		{"empty", nil, []int{}},
	}
	for _, tc := range tests {
		got := SeqNumbers(tc.res, nil)
		if len(got) != len(tc.want) {
			t.Errorf("%s: SeqNumbers = %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: SeqNumbers = %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}
