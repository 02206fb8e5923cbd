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

// sortRanked stably sorts v by key (LSD radix sort, 8-bit digits, passes
// over a constant digit skipped), using tmp as scratch; it returns the
// sorted slice (v or tmp).
func sortRanked(v, tmp []ranked) []ranked {
	tmp = tmp[:len(v)]
	var count [256]int32
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, x := range v {
			count[byte(x.key>>shift)]++
		}
		if len(v) == 0 || int(count[byte(v[0].key>>shift)]) == len(v) {
			continue // every key has this digit: the pass would not move anything
		}
		sum := int32(0)
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, x := range v {
			d := byte(x.key >> shift)
			tmp[count[d]] = x
			count[d]++
		}
		v, tmp = tmp, v
	}
	return v
}
