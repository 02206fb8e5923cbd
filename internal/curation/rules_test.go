package curation

import (
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"unsafe"

	"github.com/foldcorpus/foldcorpus/internal/assembly"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// clashPair is an entry of two GLY chains: A, 3 residues along y at x=0;
// B, 2 residues, whose first three atoms sit at x=bx, level with three of
// A's atoms (their distance is exactly bx in float64 when bx is 1.700:
// 1.7 - 0 = 1.7), the rest 5 A above.
func clashPair(bx string) []synthAtom {
	atoms := backbone("A", 1, 3, "0.000", 0, 2, "0.000")
	b := backbone("B", 1, 2, bx, 0, 2, "5.000")
	for k := 0; k < 3; k++ {
		b[k].z = "0.000"
	}
	return append(atoms, b...)
}

// TestClashDistanceIsStrict pins gemmi's neighbour test, dist^2 < 1.7*1.7
// (float64, 1.7*1.7 rounded as a product): three of B's eight atoms
// exactly 1.7 A from A do not clash; at 1.699 A they do, and B (3 >= 8/3)
// is dropped while A (3 < 12/3) is kept. No golden entry has an atom pair
// at exactly 1.7 A: this is the test that fails when the rule compares
// <= instead of <.
func TestClashDistanceIsStrict(t *testing.T) {
	if r2 := ClashDistanceSquared(); strconv.FormatFloat(r2, 'x', -1, 64) != "0x1.71eb851eb851ep+01" {
		t.Fatalf("clash radius squared %x, gemmi's sq(1.7) is 0x1.71eb851eb851ep+01", r2)
	}
	for _, tc := range []struct {
		bx      string
		clashes int
		dropped []Drop
	}{
		{"1.700", 0, nil},
		{"1.699", 3, []Drop{{"B", Clashing}}},
	} {
		text := synthEntry(clashPair(tc.bx), "A,B", "1", 1)
		e := mustEntry(t, text)
		counts := clashingAtomCounts(&e.Structure.Models[0])
		if counts["A"] != tc.clashes || counts["B"] != tc.clashes {
			t.Errorf("B at x=%s: clashing atoms A %d, B %d, want %d each", tc.bx, counts["A"], counts["B"], tc.clashes)
		}
		res, err := Curate(e, withHeader(t, text, Options{}))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(res.ASU.Dropped) != fmt.Sprint(tc.dropped) {
			t.Errorf("B at x=%s: dropped %v, want %v", tc.bx, res.ASU.Dropped, tc.dropped)
		}
	}
}

// TestClashFractionIsAtLeastAThird pins count >= heavy/3 (the golden
// edge_clash_third pins it too): B's 9 atoms, 3 clashing, are dropped; 2
// clashing are kept.
func TestClashFractionIsAtLeastAThird(t *testing.T) {
	for _, tc := range []struct {
		clashing int
		drop     bool
	}{{3, true}, {2, false}} {
		atoms := backbone("A", 1, 3, "0.000", 0, 2, "0.000")
		b := backbone("B", 1, 2, "1.000", 0, 2, "5.000")
		b = append(b, synthAtom{"B", "B", "GLY", "OXT", "O", 2, "1.000", "16", "5.000"})
		for k := 0; k < tc.clashing; k++ {
			b[k].z = "0.000"
		}
		text := synthEntry(append(atoms, b...), "A,B", "1", 1)
		res, err := Curate(mustEntry(t, text), withHeader(t, text, Options{}))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.ASU.Dropped) == 1 && res.ASU.Dropped[0] == (Drop{"B", Clashing}); got != tc.drop {
			t.Errorf("%d of 9 clashing: dropped %v, want B dropped %v", tc.clashing, res.ASU.Dropped, tc.drop)
		}
	}
}

// TestHeaderDeclinesBeforeExpansion: assembly 1 of one 100-residue chain
// under 121 operators (header 121 > 2 x 60) is declined as
// too_many_chains_by_header without building the copies: curation
// allocates less than 10 copies' worth of atoms (the asymmetric unit's
// cleaning and clash search take about 3), not the 121; under 120
// operators it is expanded (120 curated chains: too_many_chains) and
// allocates at least the 120 copies.
func TestHeaderDeclinesBeforeExpansion(t *testing.T) {
	atoms := backbone("A", 1, 100, "0.000", 0, 1, "0.000")
	copyBytes := uint64(len(atoms)) * uint64(unsafe.Sizeof(structure.Atom{}))
	for _, tc := range []struct {
		ops    int
		status string
	}{{121, StatusTooManyChainsByHeader}, {120, StatusTooManyChains}} {
		text := synthEntry(atoms, "A", "1-"+strconv.Itoa(tc.ops), tc.ops)
		e := mustEntry(t, text)
		opt := withHeader(t, text, Options{MaxChains: 60})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := Curate(e, opt)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		if res.HeaderChains != tc.ops || res.MultimerStatus != tc.status {
			t.Errorf("%d operators: header %d, status %q, want %d, %q", tc.ops, res.HeaderChains, res.MultimerStatus, tc.ops, tc.status)
		}
		switch tc.status {
		case StatusTooManyChainsByHeader:
			if alloc >= 10*copyBytes || len(res.Assembly.Kept)+len(res.Assembly.Dropped) != 0 {
				t.Errorf("121 operators: curation allocated %d bytes (10 copies' atoms: %d) and curated %d assembly chains: it expanded", alloc, 10*copyBytes, len(res.Assembly.Kept))
			}
		default:
			if alloc < uint64(tc.ops)*copyBytes || len(res.Assembly.Kept) != tc.ops {
				t.Errorf("120 operators: %d bytes allocated, %d chains kept; want >= %d bytes, %d chains", alloc, len(res.Assembly.Kept), uint64(tc.ops)*copyBytes, tc.ops)
			}
		}
		t.Logf("%d operators: %s, %d bytes allocated (one copy's atoms %d bytes)", tc.ops, res.MultimerStatus, alloc, copyBytes)
	}
}

// TestNoModel: an entry without atoms is an error, not a silent result.
func TestNoModel(t *testing.T) {
	e := mustEntry(t, "data_X\n_entity.id 1\n")
	if _, err := Curate(e, Options{}); err == nil {
		t.Fatal("no error for an entry without a model")
	}
}

// TestClashSearchesAgree: the grid search, the hashed search and a
// brute-force count agree on real structures (the asymmetric units and
// assemblies of a few corpus entries, crowded and sparse).
func TestClashSearchesAgree(t *testing.T) {
	dir := testcorpus.Dir(t)
	for _, f := range []string{"pdb/4hhb.cif", "pdb/5i55.cif", "golden/pdb-curation/edge/edge_clash.cif", "golden/pdb-curation/edge/edge_clash_third.cif"} {
		e, err := mmcif.ReadEntryFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		models := []*structure.Model{cleanASU(&e.Structure.Models[0])}
		if as, err := assembly.Parse(e); err == nil && assembly.Find(as, "1") != nil {
			copies, err := assembly.Plan(assembly.Find(as, "1"), &e.Structure.Models[0])
			if err != nil {
				t.Fatal(err)
			}
			models = append(models, cleanAssembly(&e.Structure.Models[0], copies))
		}
		for _, m := range models {
			grid := clashingAtomCounts(m)
			atoms, chainOf, lo, _ := clashAtoms(m)
			sparse := clashCountsSparse(m, atoms, chainOf, lo)
			brute := make([]bool, len(atoms))
			r2 := ClashDistanceSquared()
			for i := range atoms {
				for j := i + 1; j < len(atoms); j++ {
					if chainOf[i] != chainOf[j] && within(atoms[i], atoms[j], r2) {
						brute[i], brute[j] = true, true
					}
				}
			}
			want := countClashes(m, brute, chainOf)
			if !reflect.DeepEqual(grid, want) || !reflect.DeepEqual(sparse, want) {
				t.Errorf("%s (%d chains): grid %v, hashed %v, brute force %v", f, len(m.Chains), grid, sparse, want)
			}
		}
	}
}
