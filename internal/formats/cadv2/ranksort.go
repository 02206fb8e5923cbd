package cadv2

import "math"

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
