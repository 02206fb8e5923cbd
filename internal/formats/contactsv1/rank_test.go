package contactsv1

import (
	"slices"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

func TestRankByDegree(t *testing.T) {
	r := pyrandom.New(5)
	var scratch []rankItem
	for trial := 0; trial < 200; trial++ {
		n := r.RandBelow(3000)
		deg := make([]float64, n)
		for i := range deg {
			switch r.RandBelow(3) {
			case 0:
				deg[i] = float64(1+r.RandBelow(5)) / 10 // many ties
			case 1:
				deg[i] = r.Random() * 1e-6
			default:
				deg[i] = r.Random()
			}
		}
		idx := make([]int32, 0, n)
		for i := 0; i < n; i++ {
			if r.Random() < 0.8 {
				idx = append(idx, int32(i))
			}
		}
		want := slices.Clone(idx)
		slices.SortStableFunc(want, func(x, y int32) int {
			switch {
			case deg[x] > deg[y]:
				return -1
			case deg[x] < deg[y]:
				return 1
			}
			return 0
		})
		var got []int32
		got, scratch = rankByDegree(idx, deg, scratch)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (n=%d): rankByDegree differs from the stable sort", trial, len(idx))
		}
	}
}
