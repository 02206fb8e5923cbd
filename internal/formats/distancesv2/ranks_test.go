package distancesv2

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// exactOrder is step 7's order: indices by descending rank, ties in index
// order.
func exactOrder(ranks []float64) []uint32 {
	want := make([]uint32, len(ranks))
	for i := range want {
		want[i] = uint32(i)
	}
	slices.SortStableFunc(want, func(a, b uint32) int {
		switch {
		case ranks[a] > ranks[b]:
			return -1
		case ranks[a] < ranks[b]:
			return 1
		}
		return 0
	})
	return want
}

// TestFixClustersMatchesExact: ranks with exact ties, near ties (closer
// than delta, and just over it) and ordinary gaps, seen through
// approximations off by up to delta/4 either way: sorting by the
// approximations and fixing the clusters gives the exact order.
func TestFixClustersMatchesExact(t *testing.T) {
	const delta = 1e-9
	r := rand.New(rand.NewPCG(5, 6))
	fixed, misordered := 0, 0
	for seed := range 300 {
		n := []int{0, 1, 2, 3, 17, 200, 1500}[seed%7]
		exact := make([]float64, n)
		for i := range exact {
			switch r.IntN(5) {
			case 0: // an exact tie with an earlier rank
				if i > 0 {
					exact[i] = exact[r.IntN(i)]
					continue
				}
			case 1: // near an earlier rank, within a few delta
				if i > 0 {
					exact[i] = exact[r.IntN(i)] + (r.Float64()-0.5)*6*delta
					continue
				}
			case 2: // a few distinct values: many ties
				exact[i] = float64(r.IntN(4)) - 1
				continue
			}
			exact[i] = r.NormFloat64() + float64(seed%3)
		}
		approx := make([]float64, n)
		keys := make([]uint64, n)
		for i, e := range exact {
			approx[i] = e + (2*r.Float64()-1)*delta/4
			if seed%5 == 0 {
				approx[i] = e // ties stay exact ties
			}
			keys[i] = rankKey(approx[i])
		}
		v := sortRanked(keys, make([]uint64, n), make([]uint64, n))
		want := exactOrder(exact)
		for i := range want {
			if uint32(v[i]) != want[i] {
				misordered++
				break
			}
		}
		calls := 0
		_, k := fixClusters(v, approx, delta, func(i int) float64 { calls++; return exact[i] }, nil)
		fixed += k
		for i := range want {
			if uint32(v[i]) != want[i] {
				t.Fatalf("seed %d, n %d: position %d holds %d, want %d", seed, n, i, uint32(v[i]), want[i])
			}
		}
		if n > 0 && calls >= n && n > 100 {
			t.Errorf("seed %d, n %d: %d exact ranks computed for %d clusters: clusters too large", seed, n, calls, k)
		}
	}
	t.Logf("%d clusters sorted; the approximate order was wrong in %d of 300 cases", fixed, misordered)
	if fixed == 0 || misordered == 0 {
		t.Fatal("no cluster sorted or no approximate order wrong: the test does not exercise fixClusters")
	}
}

// TestApproxRanksSameDocuments: on the AFDB corpus structures, under many
// seeds and with rank options that force near and exact ties, documents
// from approximate ranks (with clusters fixed) equal those from exact
// ranks.
func TestApproxRanksSameDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	dir := filepath.Join(testcorpus.Dir(t), "afdb")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ps []*Protein
	for _, e := range ents {
		s, err := mmcif.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var p Protein
		if filtered, err := p.adapt(s, true); err != nil || filtered != "" {
			continue
		}
		ps = append(ps, &p)
	}
	if len(ps) == 0 {
		t.Fatal("no AFDB structures")
	}
	for _, kv := range []map[string]string{
		nil,
		{"distance_rank_std": "1e-8"}, // distances within ~1e-8: clusters of a few
		{"contact_rank_std": "0", "distance_rank_std": "1e-11", "contact_rank_mean": "0"}, // one cluster
		{"contact_rank_std": "0", "residue_plddt_min": "0"},                               // contacts tie exactly
	} {
		o := mustFormat(t, kv).opts
		approx, exact := NewGenerator(o), NewGenerator(o)
		if approx.rankDelta == 0 {
			t.Fatalf("options %v: approximate ranks not used", kv)
		}
		exact.rankDelta = 0
		seeds := 20
		if kv == nil {
			seeds = 200
		}
		docs := 0
		for _, p := range ps {
			for s := range seeds {
				id := "AF-SEED" + strconv.Itoa(s)
				a := approx.Generate(p, id)
				want := exact.Generate(p, id)
				if string(a.Document) != string(want.Document) || a.Filtered != want.Filtered {
					t.Fatalf("options %v, %d residues, seed %s: documents differ", kv, len(p.Res), id)
				}
				docs++
			}
		}
		t.Logf("options %v: %d documents, %d clusters sorted by exact ranks", kv, docs, approx.clusters)
		if kv != nil && approx.clusters == 0 {
			t.Errorf("options %v: no clusters: the near ties were not exercised", kv)
		}
	}
}
