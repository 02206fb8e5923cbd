package coordfront

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// joinAtomsMaps is the join as it was written first: one map of numbers
// per chain key, the walk's duplicate residues dropped, the atoms copied
// for every lookup. TestJoinAtomsMatchesMaps holds joinAtoms to it.
func joinAtomsMaps(st *structure.Structure, a *contactsv1.Analysis) Atoms {
	var out Atoms
	var chains []string
	var byKey []map[int64]span
	chainID := func(c string) int {
		for i, k := range chains {
			if k == c {
				return i
			}
		}
		chains = append(chains, c)
		byKey = append(byKey, map[int64]span{})
		return len(chains) - 1
	}
	var vocab []uint8
	var coords [][3]float64
	if len(st.Models) > 0 {
		for ci := range st.Models[0].Chains {
			ch := &st.Models[0].Chains[ci]
			m := byKey[chainID(chainKey(ch.Name))]
			for _, res := range ch.Polymer() {
				from := len(vocab)
			atoms:
				for k := range res.Atoms {
					at := &res.Atoms[k]
					if at.IsHydrogen() {
						continue
					}
					vi := vocabIndex(strings.TrimSpace(at.Name))
					if vi < 0 {
						continue
					}
					for _, seen := range vocab[from:] {
						if int(seen) == vi {
							continue atoms
						}
					}
					vocab = append(vocab, uint8(vi))
					coords = append(coords, [3]float64{at.X, at.Y, at.Z})
				}
				if len(vocab) == from {
					continue
				}
				k := int64(res.AuthSeq)
				if _, dup := m[k]; dup {
					out.DuplicateKeys++
					vocab, coords = vocab[:from], coords[:from]
					continue
				}
				m[k] = span{int32(from), int32(len(vocab))}
			}
		}
	}
	for r := range a.ResName {
		sp, ok := byKey[chainID(chainKey(a.ResChain[r]))][a.ResNum[r]]
		if !ok {
			continue
		}
		out.Joined++
		for range sp.to - sp.from {
			out.Res = append(out.Res, int32(r))
		}
		out.Vocab = append(out.Vocab, vocab[sp.from:sp.to]...)
		out.Coord = append(out.Coord, coords[sp.from:sp.to]...)
	}
	return out
}

// randomJoin is a structure and an analysis with what the join must
// handle: hydrogens, names outside the vocabulary and padded ones, altloc
// doubles, duplicate and missing numbers, wide number ranges (the map
// tables), chains sharing a key, non-polymer residues, and analysis
// residues in and out of the walk's order.
func randomJoin(rng *rand.Rand) (*structure.Structure, *contactsv1.Analysis) {
	names := []string{"N", "CA", "C", "O", "CB", "CG", " CD1", "OXT", "H", "HA", "XX", "SE", ""}
	chainNames := []string{"A", "B", " ", "", " A"}
	var chains []structure.Chain
	type key struct {
		chain string
		num   int64
	}
	var keys []key
	for range 1 + rng.IntN(3) {
		name := chainNames[rng.IntN(len(chainNames))]
		var res []structure.Residue
		base := rng.IntN(20) - 5
		if rng.IntN(4) == 0 {
			base = rng.IntN(1 << 30)
		}
		for i := range rng.IntN(30) {
			num := base + i
			switch rng.IntN(10) {
			case 0:
				num = base + rng.IntN(i+1) // a duplicate, likely
			case 1:
				num = base + rng.IntN(1<<20) // far
			}
			r := structure.Residue{Name: "ALA", AuthSeq: num, Entity: structure.EntityPolymer, Subchain: "s"}
			if rng.IntN(15) == 0 {
				r.Entity = structure.EntityUnknown
			}
			for range rng.IntN(8) {
				n := names[rng.IntN(len(names))]
				el := "C"
				if strings.HasPrefix(n, "H") {
					el = "H"
				}
				r.Atoms = append(r.Atoms, structure.Atom{Name: n, Element: el, X: rng.Float64(), Y: rng.Float64(), Z: rng.Float64()})
			}
			res = append(res, r)
			keys = append(keys, key{chainKey(name), int64(num)})
		}
		chains = append(chains, structure.Chain{Name: name, Residues: res})
	}
	st := &structure.Structure{Name: "R", Models: []structure.Model{{Num: 1, Chains: chains}}}
	a := &contactsv1.Analysis{EntryID: "R"}
	n := rng.IntN(40)
	for i := range n {
		k := key{"A", int64(i)}
		if len(keys) > 0 && rng.IntN(5) != 0 {
			k = keys[min(len(keys)-1, i+rng.IntN(2)*rng.IntN(3))]
			if rng.IntN(8) == 0 {
				k = keys[rng.IntN(len(keys))]
			}
		}
		a.ResName = append(a.ResName, "ALA")
		a.ResNum = append(a.ResNum, k.num)
		a.ResChain = append(a.ResChain, k.chain)
	}
	return st, a
}

// TestJoinAtomsMatchesMaps: the join (dense tables, the walk's atoms
// shared when the lookups take them in order) gives what the map join
// gives, reusing one Scratch across structures.
func TestJoinAtomsMatchesMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Scratch
	shared := 0
	for i := range 5000 {
		st, a := randomJoin(rng)
		want := joinAtomsMaps(st, a)
		s.joinAtoms(st, a)
		got := s.atoms
		if len(got.Coord) > 0 && len(s.coords) > 0 && &got.Coord[0] == &s.coords[0] {
			shared++
		}
		norm := func(x Atoms) Atoms {
			if len(x.Res) == 0 {
				x.Res, x.Vocab, x.Coord = nil, nil, nil
			}
			return x
		}
		if !reflect.DeepEqual(norm(got), norm(want)) {
			t.Fatalf("case %d: joinAtoms = %+v\nthe map join %+v", i, got, want)
		}
	}
	if shared == 0 {
		t.Errorf("no case shared the walk's atoms")
	}
}
