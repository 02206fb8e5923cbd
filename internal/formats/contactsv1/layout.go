package contactsv1

import (
	"fmt"
	"slices"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// segment is one chain: residues [start, stop) of the record.
type segment struct {
	id          string
	start, stop int
}

func (s segment) length() int { return s.stop - s.start }

// chainSegments splits the residues into chains, in structure order. A chain
// must be one contiguous run: a chain id that reappears after another chain
// is an error (the record is malformed, not something to paper over).
func chainSegments(chains []string) ([]segment, error) {
	var segs []segment
	for k, c := range chains {
		if len(segs) > 0 && segs[len(segs)-1].id == c {
			segs[len(segs)-1].stop = k + 1
			continue
		}
		for _, s := range segs {
			if s.id == c {
				return nil, fmt.Errorf("chain %q appears in more than one run of residues (again at residue %d)", c, k)
			}
		}
		segs = append(segs, segment{id: c, start: k, stop: k + 1})
	}
	return segs, nil
}

// fitsRing reports whether the chains can be laid out on the index ring:
// a single chain needs at most ringSize residues; several chains also need
// at least one free index between each pair of ring neighbours.
func fitsRing(n, chains int) bool {
	if chains <= 1 {
		return n <= ringSize
	}
	return n+chains <= ringSize
}

// layout places the chains on the ring and returns, for each chain in
// structure order, the index of its n-terminal residue, and the start index
// (the n-terminus of the first chain in ring order).
//
// Draw order (load-bearing; MarinFold 19f81b6's _layout_chains with
// min_chain_gap 1): with more than one chain, first the ring order of the
// chains (a shuffle of the chain indices), then the gaps: the slack
// (free indices less one per chain) split as a uniformly random
// composition into k parts by k-1 independent randint(0, slack) cuts,
// sorted, each part plus the one required free index after its chain;
// then the start index. A single chain draws only the start index, so
// single-chain documents are the ones the single-chain generator wrote.
// (Two chains draw one cut, randbelow(slack+1), as before.)
func layout(r *pyrandom.Rand, segs []segment, n int) (nTerm []int, start int) {
	k := len(segs)
	nTerm = make([]int, k)
	if k == 1 {
		start = r.RandBelow(ringSize)
		nTerm[0] = start
		return nTerm, start
	}
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	pyrandom.Shuffle(r, order)
	slack := ringSize - n - k // fitsRing holds
	cuts := make([]int, k-1)
	for i := range cuts {
		cuts[i] = r.RandBelow(slack + 1)
	}
	slices.Sort(cuts)
	start = r.RandBelow(ringSize)
	pos, prevCut := start, 0
	for g, c := range order {
		nTerm[c] = pos % ringSize
		next := slack
		if g < len(cuts) {
			next = cuts[g]
		}
		pos += segs[c].length() + 1 + next - prevCut
		prevCut = next
	}
	return nTerm, start
}
