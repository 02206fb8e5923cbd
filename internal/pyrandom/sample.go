package pyrandom

import "math"

// sampleSetSize is CPython's sample() threshold: a population no larger
// than this is sampled from a pool copy, a larger one by rejection.
func sampleSetSize(k int) int {
	setsize := 21
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(Log(float64(k*3))/Log(4))))
	}
	return setsize
}

// SampleIndices appends to dst the result of random.sample(range(n), k) and
// returns it: the same draws as Sample over a population of n indices, with
// the pool or the chosen-set kept in r's scratch space, so that repeated
// calls allocate nothing once warm.
func SampleIndices(r *Rand, dst []int32, n, k int) []int32 {
	if k < 0 || k > n {
		panic("pyrandom: SampleIndices larger than population or is negative")
	}
	if n <= sampleSetSize(k) {
		if cap(r.pool) < n {
			r.pool = make([]int32, n)
		}
		pool := r.pool[:n]
		for i := range pool {
			pool[i] = int32(i)
		}
		for i := 0; i < k; i++ {
			j := r.RandBelow(n - i)
			dst = append(dst, pool[j])
			pool[j] = pool[n-i-1]
		}
		return dst
	}
	words := (n + 63) / 64
	if cap(r.chosen) < words {
		r.chosen = make([]uint64, words)
	}
	chosen := r.chosen[:words]
	clear(chosen)
	for i := 0; i < k; i++ {
		j := r.RandBelow(n)
		for chosen[j>>6]&(1<<(j&63)) != 0 {
			j = r.RandBelow(n)
		}
		chosen[j>>6] |= 1 << (j & 63)
		dst = append(dst, int32(j))
	}
	return dst
}

// Sample2 returns random.sample(range(n), 2) as a pair, without allocating.
func Sample2(r *Rand, n int) (int, int) {
	if n < 2 {
		panic("pyrandom: Sample2 needs a population of at least 2")
	}
	if n <= 21 {
		a := r.RandBelow(n)
		j := r.RandBelow(n - 1)
		if j == a {
			return a, n - 1
		}
		return a, j
	}
	a := r.RandBelow(n)
	b := r.RandBelow(n)
	for b == a {
		b = r.RandBelow(n)
	}
	return a, b
}

// Reseed resets r to the state of random.Random(seed) for a non-negative
// int seed (as New, reusing r's memory; the cached gauss value is dropped).
func (r *Rand) Reseed(seed uint64) {
	lo, hi := uint32(seed), uint32(seed>>32)
	if hi == 0 {
		r.initByArray([]uint32{lo})
		return
	}
	r.initByArray([]uint32{lo, hi})
}
