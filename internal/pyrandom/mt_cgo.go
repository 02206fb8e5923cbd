//go:build cgo

package pyrandom

/*
#cgo CFLAGS: -O2
#include <stdint.h>
#include <string.h>

// Four 32-bit lanes (GCC/Clang vector extension): SSE2 on amd64, NEON on
// arm64. MT19937's recurrence reads mt[kk+1] (not yet rewritten) and
// mt[kk+397] or mt[kk-227] (at least 227 words back), so four consecutive
// words can be computed at once.
typedef uint32_t v4u __attribute__((vector_size(16)));

static inline v4u ld(const uint32_t *p) { v4u v; memcpy(&v, p, 16); return v; }
static inline void st(uint32_t *p, v4u v) { memcpy(p, &v, 16); }

static inline uint32_t step(uint32_t a, uint32_t b, uint32_t c) {
	uint32_t y = (a & 0x80000000u) | (b & 0x7fffffffu);
	return c ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
}

static inline v4u vstep(v4u a, v4u b, v4u c) {
	v4u y = (a & 0x80000000u) | (b & 0x7fffffffu);
	return c ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
}

// mt_block is genrand_uint32's block generation followed by the tempering
// of all 624 words into out.
static void mt_block(uint32_t *mt, uint32_t *out) {
	int kk = 0;
	for (; kk + 4 <= 227; kk += 4)
		st(mt + kk, vstep(ld(mt + kk), ld(mt + kk + 1), ld(mt + kk + 397)));
	for (; kk < 227; kk++)
		mt[kk] = step(mt[kk], mt[kk + 1], mt[kk + 397]);
	for (; kk + 4 <= 623; kk += 4)
		st(mt + kk, vstep(ld(mt + kk), ld(mt + kk + 1), ld(mt + kk - 227)));
	for (; kk < 623; kk++)
		mt[kk] = step(mt[kk], mt[kk + 1], mt[kk - 227]);
	mt[623] = step(mt[623], mt[0], mt[396]);
	for (int i = 0; i < 624; i += 4) {
		v4u y = ld(mt + i);
		y ^= y >> 11;
		y ^= (y << 7) & 0x9d2c5680u;
		y ^= (y << 15) & 0xefc60000u;
		y ^= y >> 18;
		st(out + i, y);
	}
}
*/
import "C"

// generate computes the next MT19937 block and its tempered outputs (as
// generateGo does, four words at a time in C).
func (r *Rand) generate() {
	C.mt_block((*C.uint32_t)(&r.mt[0]), (*C.uint32_t)(&r.out[0]))
	r.mti = 0
}
