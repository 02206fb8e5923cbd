package distancesv2

import (
	"cmp"
	"math"
	"slices"
)

// rankKey maps a rank to a uint64 whose ascending order is the rank's
// descending order (-0 and +0 map alike, as they compare equal).
func rankKey(r float64) uint64 {
	if r == 0 {
		r = 0
	}
	b := math.Float64bits(r)
	if b>>63 != 0 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return ^b
}

// sortRanked returns the indices of keys in ascending key order, stably
// (equal keys in index order), in the low 32 bits of the elements of the
// returned slice (v or tmp, each of len(keys), the scratch space). It is an
// LSD radix sort of the keys' top 32 bits, which it moves with the index in
// one word (four 8-bit digits, histograms counted in one pass, passes over
// a constant digit skipped), then an insertion sort on the whole keys,
// which only moves indices whose keys' top 32 bits tie (rare for gauss
// ranks).
func sortRanked(keys, v, tmp []uint64) []uint64 {
	v, tmp = v[:len(keys)], tmp[:len(keys)]
	var count [4][256]int32
	for i, k := range keys {
		h := k >> 32
		v[i] = h<<32 | uint64(i)
		count[0][byte(h)]++
		count[1][byte(h>>8)]++
		count[2][byte(h>>16)]++
		count[3][byte(h>>24)]++
	}
	if len(v) < 2 {
		return v
	}
	for d := range count {
		shift := 32 + 8*uint(d)
		c := &count[d]
		if int(c[byte(v[0]>>shift)]) == len(v) {
			continue // every key has this digit: the pass would not move anything
		}
		sum := int32(0)
		for k, n := range c {
			c[k] = sum
			sum += n
		}
		for _, x := range v {
			k := byte(x >> shift)
			tmp[c[k]] = x
			c[k]++
		}
		v, tmp = tmp, v
	}
	for i := 1; i < len(v); i++ {
		x := v[i]
		less := func(y uint64) bool { return y>>32 == x>>32 && keys[uint32(x)] < keys[uint32(y)] }
		if less(v[i-1]) {
			j := i
			for j > 0 && less(v[j-1]) {
				v[j] = v[j-1]
				j--
			}
			v[j] = x
		}
	}
	return v
}

// rankedIx is a statement index with its exact rank (fixClusters).
type rankedIx struct {
	rank float64
	ix   uint32
}

// fixClusters makes v, the statements in ascending order of the keys of
// their approximate ranks (sortRanked), the order of their exact ranks:
// descending, ties in index order.
//
// Each approximate rank is within E of the exact one, and delta >= 4E. If
// two statements a and b are in the wrong order, say exact(a) >= exact(b)
// (a first, or a tie with a the lower index) but b comes first, then
// approx(b) >= approx(a) and approx(b) - approx(a) <= exact(b) - exact(a) +
// 2E <= 2E < delta; every statement between them has an approximate rank in
// between, so every gap from a to b is below delta: they are in one
// cluster, a maximal run of neighbours whose approximate ranks differ by at
// most delta. So clusters are already in their exact order with respect to
// each other, and fixClusters only sorts each cluster of two or more by the
// exact ranks (exact(i), computed only for their members). The high 32
// bits of each fixed element are the top of its exact rank's key. tmp is
// scratch space, returned for reuse; n is the number of clusters sorted.
func fixClusters(v []uint64, approx []float64, delta float64, exact func(i int) float64, tmp []rankedIx) (_ []rankedIx, n int) {
	for s := 0; s < len(v)-1; {
		e := s + 1
		prev := approx[uint32(v[s])]
		for e < len(v) {
			cur := approx[uint32(v[e])]
			if !(prev-cur <= delta) {
				break
			}
			prev = cur
			e++
		}
		if e-s >= 2 {
			tmp = sortExact(v[s:e], exact, tmp)
			n++
		}
		s = e
	}
	return tmp, n
}

// sortExact sorts the cluster c by exact rank, descending, ties in index
// order.
func sortExact(c []uint64, exact func(i int) float64, tmp []rankedIx) []rankedIx {
	tmp = tmp[:0]
	for _, x := range c {
		tmp = append(tmp, rankedIx{exact(int(uint32(x))), uint32(x)})
	}
	slices.SortFunc(tmp, func(a, b rankedIx) int {
		switch {
		case a.rank > b.rank:
			return -1
		case a.rank < b.rank:
			return 1
		}
		return cmp.Compare(a.ix, b.ix)
	})
	for k, t := range tmp {
		c[k] = rankKey(t.rank)>>32<<32 | uint64(t.ix)
	}
	return tmp
}
