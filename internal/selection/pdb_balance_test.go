package selection

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBalanceGroups: every task once, no group over its rows, each group
// in descending cost, and the costliest group within the largest task of
// the mean (the greedy rule's bound) and under half of what dealing in
// processing order (exp222's) gives on a heavy-tailed mix, where the
// first group takes every giant.
func TestBalanceGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tasks []PDBTask
	for i := range 1000 {
		c := int64(20 + rng.IntN(400))
		if i%97 == 0 {
			c *= 300 // a capsid, a photosystem
		}
		tasks = append(tasks, PDBTask{PDBID: fmt.Sprint(i), Cost: c, ProcessingRank: int64(i)})
	}
	slices.SortStableFunc(tasks, func(a, b PDBTask) int { return int(b.Cost - a.Cost) })
	groups := BalanceGroups(tasks, 100)
	if len(groups) != 10 {
		t.Fatalf("%d groups, want 10", len(groups))
	}
	seen := map[string]bool{}
	var total, worst, largest int64
	for gi, g := range groups {
		if len(g) > 100 {
			t.Errorf("group %d: %d rows", gi, len(g))
		}
		var c int64
		for i, task := range g {
			if seen[task.PDBID] {
				t.Errorf("%s twice", task.PDBID)
			}
			seen[task.PDBID] = true
			if i > 0 && task.Cost > g[i-1].Cost {
				t.Errorf("group %d row %d: cost %d after %d", gi, i, task.Cost, g[i-1].Cost)
			}
			c += task.Cost
			largest = max(largest, task.Cost)
		}
		total += c
		worst = max(worst, c)
	}
	if len(seen) != len(tasks) {
		t.Fatalf("%d of %d tasks dealt", len(seen), len(tasks))
	}
	mean := total / 10
	var inOrder int64 // exp222's order: the first 100 tasks by cost
	for _, task := range tasks[:100] {
		inOrder += task.Cost
	}
	t.Logf("costliest group %d, mean %d (%.2fx); in processing order the first group costs %d (%.2fx)", worst, mean, float64(worst)/float64(mean), inOrder, float64(inOrder)/float64(mean))
	if worst > mean+largest {
		t.Errorf("costliest group %d > mean %d + largest task %d", worst, mean, largest)
	}
	if 2*worst > inOrder {
		t.Errorf("costliest group %d: not under half the first group's in processing order (%d)", worst, inOrder)
	}
}
