package cadv2

import "math"

// ranked is a statement's index and its rank.
type ranked struct {
	key uint64 // ascending key = descending rank
	idx int32
}

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

// sortRanked stably sorts v by key, using tmp as scratch, and returns the
// sorted slice (v or tmp): an LSD radix sort of the keys' top 32 bits (four
// 8-bit digits, histograms counted in one pass, passes over a constant
// digit skipped), then an insertion sort, which only moves keys whose top
// 32 bits tie (rare for gauss ranks).
func sortRanked(v, tmp []ranked) []ranked {
	tmp = tmp[:len(v)]
	if len(v) < 2 {
		return v
	}
	var count [4][256]int32
	for _, x := range v {
		h := uint32(x.key >> 32)
		count[0][byte(h)]++
		count[1][byte(h>>8)]++
		count[2][byte(h>>16)]++
		count[3][byte(h>>24)]++
	}
	for d := range count {
		shift := 32 + 8*uint(d)
		c := &count[d]
		if int(c[byte(v[0].key>>shift)]) == len(v) {
			continue // every key has this digit: the pass would not move anything
		}
		sum := int32(0)
		for k, n := range c {
			c[k] = sum
			sum += n
		}
		for _, x := range v {
			k := byte(x.key >> shift)
			tmp[c[k]] = x
			c[k]++
		}
		v, tmp = tmp, v
	}
	for i := 1; i < len(v); i++ {
		if x := v[i]; x.key < v[i-1].key {
			j := i
			for j > 0 && v[j-1].key > x.key {
				v[j] = v[j-1]
				j--
			}
			v[j] = x
		}
	}
	return v
}
