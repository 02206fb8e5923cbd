// mt.h: the C of mt_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_PYRANDOM_MT_H
#define FOLDCORPUS_PYRANDOM_MT_H

#include <stdint.h>
#include <string.h>

// Eight 32-bit lanes (GCC/Clang vector extension): two SSE2 registers on
// amd64 (one AVX2 register in mt_block_avx2), NEON on arm64. MT19937's
// recurrence reads mt[kk+1] (not yet rewritten) and mt[kk+397] or
// mt[kk-227] (at least 227 words back), so eight consecutive words can be
// computed at once.
typedef uint32_t v8u __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) v8u ld(const uint32_t *p) { v8u v; memcpy(&v, p, 32); return v; }
static inline __attribute__((always_inline)) void st(uint32_t *p, v8u v) { memcpy(p, &v, 32); }

static inline __attribute__((always_inline)) uint32_t step(uint32_t a, uint32_t b, uint32_t c) {
	uint32_t y = (a & 0x80000000u) | (b & 0x7fffffffu);
	return c ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
}

static inline __attribute__((always_inline)) v8u vstep(v8u a, v8u b, v8u c) {
	v8u y = (a & 0x80000000u) | (b & 0x7fffffffu);
	return c ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
}

// MT_BLOCK defines genrand_uint32's block generation followed by the
// tempering of all 624 words into out, under a name (once for any CPU,
// once compiled for AVX2).
#define MT_BLOCK(name) \
static void name(uint32_t *mt, uint32_t *out) { \
	int kk = 0; \
	for (; kk + 8 <= 227; kk += 8) \
		st(mt + kk, vstep(ld(mt + kk), ld(mt + kk + 1), ld(mt + kk + 397))); \
	for (; kk < 227; kk++) \
		mt[kk] = step(mt[kk], mt[kk + 1], mt[kk + 397]); \
	for (; kk + 8 <= 623; kk += 8) \
		st(mt + kk, vstep(ld(mt + kk), ld(mt + kk + 1), ld(mt + kk - 227))); \
	for (; kk < 623; kk++) \
		mt[kk] = step(mt[kk], mt[kk + 1], mt[kk - 227]); \
	mt[623] = step(mt[623], mt[0], mt[396]); \
	for (int i = 0; i < 624; i += 8) { \
		v8u y = ld(mt + i); \
		y ^= y >> 11; \
		y ^= (y << 7) & 0x9d2c5680u; \
		y ^= (y << 15) & 0xefc60000u; \
		y ^= y >> 18; \
		st(out + i, y); \
	} \
}

MT_BLOCK(mt_block_any)
#if defined(__x86_64__)
__attribute__((target("avx2"))) MT_BLOCK(mt_block_avx2)
#else
#define mt_block_avx2 mt_block_any
#endif

static void mt_block(uint32_t *mt, uint32_t *out, int avx2) {
	if (avx2)
		mt_block_avx2(mt, out);
	else
		mt_block_any(mt, out);
}

#endif // FOLDCORPUS_PYRANDOM_MT_H
