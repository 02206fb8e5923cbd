package contactsv1

import "math"

// rankByDegree reorders idx (indices into degree, in record order) strongest
// first, keeping record order among equal degrees: the stable sort by
// descending degree the reference does. It is an LSD radix sort on the
// degrees' bit patterns (for positive floats they order like the values),
// one pass per byte that is not the same in every key. scratch is reused
// when large enough; the sorted indices are returned.
func rankByDegree(idx []int32, degree []float64, scratch []rankItem) ([]int32, []rankItem) {
	n := len(idx)
	if cap(scratch) < 2*n {
		scratch = make([]rankItem, 2*n)
	}
	src, dst := scratch[:n], scratch[n:2*n]
	var and, or uint64 = math.MaxUint64, 0
	for i, c := range idx {
		k := ^math.Float64bits(degree[c]) // ascending key = descending degree
		src[i] = rankItem{k, c}
		and &= k
		or |= k
	}
	varying := and ^ or // bits that differ between some keys
	for shift := uint(0); shift < 64; shift += 8 {
		if (varying>>shift)&0xff == 0 {
			continue
		}
		var count [257]int
		for _, it := range src {
			count[(it.key>>shift)&0xff+1]++
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for _, it := range src {
			d := (it.key >> shift) & 0xff
			dst[count[d]] = it
			count[d]++
		}
		src, dst = dst, src
	}
	for i, it := range src {
		idx[i] = it.idx
	}
	return idx, scratch
}

// rankItem is one contact's sort key and record index.
type rankItem struct {
	key uint64
	idx int32
}
