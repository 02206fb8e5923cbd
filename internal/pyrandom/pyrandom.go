// Package pyrandom is a bit-exact port of CPython 3.11's random.Random: the
// MT19937 generator seeded with init_by_array, and the Python-level methods
// built on it (random, getrandbits, randrange, randint, choice, shuffle,
// sample, uniform, gauss). Given the same seed, every method returns the same
// values, in the same order, as CPython does.
//
// A Rand is not safe for concurrent use; give each goroutine (each document)
// its own. Methods whose CPython counterpart raises (an empty range, an empty
// sequence, a sample larger than its population) panic: those are caller
// bugs, not data errors.
package pyrandom

import (
	"crypto/sha512"
	"fmt"
	"math"
	"math/big"
	"math/bits"
)

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is CPython's random.Random: MT19937 state plus the cached second
// value of gauss.
type Rand struct {
	mt        [n]uint32
	out       [n]uint32 // mt's block, tempered: the next outputs
	mti       int
	gaussNext float64
	hasGauss  bool
	scratch   []float64  // FillGauss's batch buffers
	draws     GaussDraws // FillGauss's draws
	pool      []int32    // SampleIndices's pool
	chosen    []uint64   // SampleIndices's chosen set
}

// New returns the generator of random.Random(seed) for a non-negative int.
func New(seed uint64) *Rand {
	lo, hi := uint32(seed), uint32(seed>>32)
	if hi == 0 {
		return NewFromWords([]uint32{lo})
	}
	return NewFromWords([]uint32{lo, hi})
}

// NewFromWords returns the generator of random.Random(x) where x is the
// non-negative integer whose 32-bit words, least significant first, are key.
// Like CPython, high zero words are ignored (x = 0 seeds with the key [0]).
func NewFromWords(key []uint32) *Rand {
	used := len(key)
	for used > 1 && key[used-1] == 0 {
		used--
	}
	if used == 0 {
		key, used = []uint32{0}, 1
	}
	r := &Rand{}
	r.initByArray(key[:used])
	return r
}

// NewFromString returns the generator of random.Random(s) for a str seed
// (seed version 2): the seed int is the big-endian integer of the UTF-8
// bytes of s followed by their SHA-512 digest.
func NewFromString(s string) *Rand {
	return NewFromBytes([]byte(s))
}

// NewFromBytes returns the generator of random.Random(b) for a bytes seed
// (seed version 2), as NewFromString.
func NewFromBytes(b []byte) *Rand {
	sum := sha512.Sum512(b)
	buf := make([]byte, 0, len(b)+len(sum))
	buf = append(append(buf, b...), sum[:]...)
	return NewFromBig(new(big.Int).SetBytes(buf))
}

// NewFromBig returns the generator of random.Random(x) for any int x
// (CPython seeds with abs(x)).
func NewFromBig(x *big.Int) *Rand {
	a := new(big.Int).Abs(x)
	b := a.Bytes() // big-endian, no leading zeros
	words := make([]uint32, 0, len(b)/4+1)
	for end := len(b); end > 0; end -= 4 {
		var w uint32
		start := max(end-4, 0)
		for _, c := range b[start:end] {
			w = w<<8 | uint32(c)
		}
		words = append(words, w)
	}
	return NewFromWords(words)
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

// genrand19650218 is the state init_genrand(19650218) leaves, where every
// init_by_array starts.
var genrand19650218 = func() [n]uint32 {
	var r Rand
	r.initGenrand(19650218)
	return r.mt
}()

// initByArray is init_by_array. Each word depends on the one before, which
// is kept in a register (prev) rather than reloaded from mt.
func (r *Rand) initByArray(key []uint32) {
	mt := &r.mt
	*mt = genrand19650218
	r.mti = n
	prev := mt[0]
	i, j := 1, 0
	k := max(n, len(key))
	for ; k > 0; k-- {
		prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + key[j] + uint32(j)
		mt[i] = prev
		i++
		j++
		if i >= n {
			mt[0] = prev
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = n - 1; k > 0; k-- {
		prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - uint32(i)
		mt[i] = prev
		i++
		if i >= n {
			mt[0] = prev
			i = 1
		}
	}
	mt[0] = 0x80000000
	r.hasGauss = false
}

// generateGo is genrand_uint32's block generation, followed by the
// tempering of the whole block into r.out (generate in builds without cgo;
// with cgo, the reference generate is checked against).
func (r *Rand) generateGo() {
	mt := &r.mt
	// mag(y) is mag01[y&1] of the reference, without the table
	mag := func(y uint32) uint32 { return -(y & 1) & matrixA }
	for kk := 0; kk < n-m; kk++ {
		y := (mt[kk] & upperMask) | (mt[kk+1] & lowerMask)
		mt[kk] = mt[kk+m] ^ (y >> 1) ^ mag(y)
	}
	for kk := n - m; kk < n-1; kk++ {
		y := (mt[kk] & upperMask) | (mt[kk+1] & lowerMask)
		mt[kk] = mt[kk+(m-n)] ^ (y >> 1) ^ mag(y)
	}
	y := (mt[n-1] & upperMask) | (mt[0] & lowerMask)
	mt[n-1] = mt[m-1] ^ (y >> 1) ^ mag(y)
	// temper the whole block now, so that draws are loads
	out := &r.out
	for i, y := range mt {
		y ^= y >> 11
		y ^= (y << 7) & 0x9d2c5680
		y ^= (y << 15) & 0xefc60000
		y ^= y >> 18
		out[i] = y
	}
	r.mti = 0
}

// Uint32 returns the next raw 32-bit output of MT19937 (genrand_uint32).
func (r *Rand) Uint32() uint32 {
	if i := r.mti; i < n {
		r.mti = i + 1
		return r.out[i]
	}
	return r.refill()
}

// refill generates the next block and returns its first output.
func (r *Rand) refill() uint32 {
	r.generate()
	r.mti = 1
	return r.out[0]
}

// Window returns the next raw 32-bit outputs that the current block holds
// (at least one: a new block is generated when it is used up), without
// consuming them: they are what the next Uint32 calls return. Advance
// consumes them. The slice is valid until the generator is used again.
func (r *Rand) Window() []uint32 {
	if r.mti >= n {
		r.generate()
	}
	return r.out[r.mti:]
}

// Advance consumes the first k outputs of Window (0 <= k <= its length).
func (r *Rand) Advance(k int) {
	if k < 0 || r.mti+k > n {
		panic(fmt.Sprintf("pyrandom: Advance(%d) past the %d outputs of the window", k, n-r.mti))
	}
	r.mti += k
}

// Skip advances the generator by k raw 32-bit outputs (k calls of Uint32,
// their values discarded): whole blocks are still generated, but no output
// is read. It panics if k is negative.
func (r *Rand) Skip(k int) {
	if k < 0 {
		panic(fmt.Sprintf("pyrandom: Skip(%d): k must be non-negative", k))
	}
	for k > n-r.mti {
		k -= n - r.mti
		r.generate()
	}
	r.mti += k
}

// Random returns random.random(): a float64 in [0, 1) with 53 random bits.
func (r *Rand) Random() float64 {
	if i := r.mti; i < n-1 { // both words from the current block
		r.mti = i + 2
		return random53(r.out[i], r.out[i+1])
	}
	a := r.Uint32()
	return random53(a, r.Uint32())
}

// random53 is random() from its two outputs: 27 and 26 of their bits.
func random53(w0, w1 uint32) float64 {
	return (float64(w0>>5)*67108864.0 + float64(w1>>6)) * (1.0 / 9007199254740992.0)
}

// Randoms fills dst with the next len(dst) values of Random, reading
// the block's outputs in one loop while two remain.
func (r *Rand) Randoms(dst []float64) {
	for i := 0; i < len(dst); {
		k := min(len(dst)-i, (n-r.mti)/2)
		if k == 0 { // a value across two blocks
			dst[i] = r.Random()
			i++
			continue
		}
		out, d := r.out[r.mti:r.mti+2*k], dst[i:i+k]
		for j := range d {
			d[j] = random53(out[2*j], out[2*j+1])
		}
		r.mti += 2 * k
		i += k
	}
}

// GetRandBits returns random.getrandbits(k) for 0 <= k <= 64: words are drawn
// least significant first, and the last one keeps its top bits.
func (r *Rand) GetRandBits(k int) uint64 {
	if k < 0 || k > 64 {
		panic(fmt.Sprintf("pyrandom: GetRandBits(%d): k must be in [0, 64]", k))
	}
	if k <= 32 {
		if k == 0 {
			return 0
		}
		return uint64(r.Uint32() >> (32 - k))
	}
	lo := uint64(r.Uint32())
	hi := uint64(r.Uint32() >> (64 - k))
	return hi<<32 | lo
}

// RandBelow returns random._randbelow(n) for n > 0: getrandbits of
// n.bit_length() bits, redrawn until below n.
func (r *Rand) RandBelow(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("pyrandom: RandBelow(%d): n must be positive", n))
	}
	if n <= math.MaxUint32 {
		// GetRandBits(k) for k <= 32 is the top k bits of one word
		shift := 32 - bits.Len32(uint32(n))
		if i := r.mti; i+3 <= len(r.out) {
			// the first of the next three draws that is below n, chosen
			// without branches (each is below n with probability > 1/2)
			un := uint32(n)
			w := r.out[i : i+3 : i+3]
			v, used := w[2]>>shift, 3
			if x := w[1] >> shift; x < un {
				v, used = x, 2
			}
			if x := w[0] >> shift; x < un {
				v, used = x, 1
			}
			if v < un {
				r.mti = i + used
				return int(v)
			}
			r.mti = i + 3
		}
		for {
			var w uint32
			if i := r.mti; i < len(r.out) { // Uint32, without the call
				r.mti = i + 1
				w = r.out[i]
			} else {
				w = r.refill()
			}
			if v := int(w >> shift); v < n {
				return v
			}
		}
	}
	k := bitLen(uint64(n))
	v := r.GetRandBits(k)
	for v >= uint64(n) {
		v = r.GetRandBits(k)
	}
	return int(v)
}

func bitLen(x uint64) int { return bits.Len64(x) }

// RandRange returns random.randrange(start, stop, step).
func (r *Rand) RandRange(start, stop, step int) int {
	width := stop - start
	if step == 1 {
		if width > 0 {
			return start + r.RandBelow(width)
		}
		panic(fmt.Sprintf("pyrandom: empty range for randrange(%d, %d, %d)", start, stop, step))
	}
	var cnt int
	switch {
	case step > 0:
		cnt = floorDiv(width+step-1, step)
	case step < 0:
		cnt = floorDiv(width+step+1, step)
	default:
		panic("pyrandom: zero step for randrange()")
	}
	if cnt <= 0 {
		panic(fmt.Sprintf("pyrandom: empty range for randrange(%d, %d, %d)", start, stop, step))
	}
	return start + step*r.RandBelow(cnt)
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// RandInt returns random.randint(a, b): an int in [a, b].
func (r *Rand) RandInt(a, b int) int {
	return r.RandRange(a, b+1, 1)
}

// Uniform returns random.uniform(a, b) = a + (b-a)*random().
func (r *Rand) Uniform(a, b float64) float64 {
	return a + float64((b-a)*r.Random())
}

// Gauss returns random.gauss(mu, sigma). Values come in pairs: the first
// call of a pair computes both and caches the second (as CPython's
// gauss_next); reseeding is done by making a new Rand.
func (r *Rand) Gauss(mu, sigma float64) float64 {
	z := r.gaussNext
	had := r.hasGauss
	r.hasGauss = false
	if !had {
		x2pi := r.Random() * (2 * math.Pi)
		g2rad := math.Sqrt(-2.0 * Log(1.0-r.Random()))
		z = Cos(x2pi) * g2rad
		r.gaussNext = Sin(x2pi) * g2rad
		r.hasGauss = true
	}
	return mu + float64(z*sigma)
}

// FillGauss sets dst[i] = random.gauss(mu, sigma) for each i in order, as
// that many Gauss calls would (the cached second value is used first and a
// pair's unused second value is cached), computing the transcendental
// functions in one batch. It allocates only when its scratch space grows.
func (r *Rand) FillGauss(dst []float64, mu, sigma float64) {
	r.fillGauss(dst, mu, sigma, &r.draws, false)
}

// Choice returns random.choice(s).
func Choice[T any](r *Rand, s []T) T {
	if len(s) == 0 {
		panic("pyrandom: Choice from an empty sequence")
	}
	return s[r.RandBelow(len(s))]
}

// Shuffle shuffles s in place exactly as random.shuffle(s).
func Shuffle[T any](r *Rand, s []T) {
	for i := len(s) - 1; i >= 1; i-- {
		j := r.RandBelow(i + 1)
		s[i], s[j] = s[j], s[i]
	}
}

// Sample returns random.sample(pop, k): k distinct elements in selection
// order. Like CPython it uses a pool (partial shuffle of a copy) when the
// population is no larger than the set it would otherwise need, and
// rejection sampling with a set of chosen indices otherwise.
func Sample[T any](r *Rand, pop []T, k int) []T {
	nPop := len(pop)
	if k < 0 || k > nPop {
		panic(fmt.Sprintf("pyrandom: Sample larger than population or is negative (k=%d, n=%d)", k, nPop))
	}
	result := make([]T, k)
	setsize := sampleSetSize(k)
	if nPop <= setsize {
		pool := append([]T(nil), pop...)
		for i := 0; i < k; i++ {
			j := r.RandBelow(nPop - i)
			result[i] = pool[j]
			pool[j] = pool[nPop-i-1]
		}
		return result
	}
	selected := make(map[int]struct{}, k)
	for i := 0; i < k; i++ {
		j := r.RandBelow(nPop)
		for {
			if _, dup := selected[j]; !dup {
				break
			}
			j = r.RandBelow(nPop)
		}
		selected[j] = struct{}{}
		result[i] = pop[j]
	}
	return result
}
