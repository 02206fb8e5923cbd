package selection

import (
	"container/heap"
	"sort"
)

// PDBRowGroupRows is the row count of the generation manifest's row
// groups: the unit a run's shards are made of (one shard per file, or
// --row-groups-per-shard of them), each balanced by cost (BalanceGroups).
const PDBRowGroupRows = 100

// MaxChainsByHeader is the largest assembly-1 protein chain count an
// entry's multimer is built for by default (2 x exp222's max_chains 60;
// curation declines larger ones before expansion).
const MaxChainsByHeader = 120

// EstCost is an entry's estimated work, in residues analysed: its
// asymmetric unit (estResidues, every protein chain once, for the
// monomers) plus, when assembly 1 will be expanded (2 to
// MaxChainsByHeader protein chains by the header), as many residues again
// per assembly chain as an average ASU chain has. ConFind's work is about
// linear in the residues it analyses; the rows of a PDB manifest differ a
// thousandfold by it (a peptide, a 60-chain capsid).
func EstCost(estResidues, asymChains, assemblyChains int64) int64 {
	cost := estResidues
	if assemblyChains >= 2 && assemblyChains <= MaxChainsByHeader {
		cost += estResidues * assemblyChains / max(1, asymChains)
	}
	return max(1, cost)
}

// BalanceGroups deals tasks into ceil(n/groupRows) row groups of at most
// groupRows rows whose total costs are as even as the greedy rule of
// longest-processing-time-first makes them: by descending cost, each task
// goes to the group with the least cost so far that has room. Within a
// group, rows stay in descending cost, so a worker starts the largest
// entries first and the small ones fill in around them: no single entry
// starts last and holds its shard's wall. Deterministic (ties by the
// tasks' order, then the group's index).
func BalanceGroups(tasks []PDBTask, groupRows int) [][]PDBTask {
	if len(tasks) == 0 {
		return nil
	}
	groupRows = max(1, groupRows)
	k := (len(tasks) + groupRows - 1) / groupRows
	order := make([]int, len(tasks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return tasks[order[a]].Cost > tasks[order[b]].Cost })
	groups := make([][]PDBTask, k)
	h := make(loads, k)
	for i := range h {
		h[i] = load{group: i}
	}
	heap.Init(&h)
	for _, i := range order {
		l := heap.Pop(&h).(load)
		groups[l.group] = append(groups[l.group], tasks[i])
		l.cost += tasks[i].Cost
		if len(groups[l.group]) < groupRows {
			heap.Push(&h, l)
		}
	}
	return groups
}

// load is a row group's cost so far.
type load struct {
	cost  int64
	group int
}

// loads is a min-heap of row groups by cost, then index.
type loads []load

func (h loads) Len() int { return len(h) }
func (h loads) Less(i, j int) bool {
	if h[i].cost != h[j].cost {
		return h[i].cost < h[j].cost
	}
	return h[i].group < h[j].group
}
func (h loads) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *loads) Push(x any)   { *h = append(*h, x.(load)) }
func (h *loads) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
