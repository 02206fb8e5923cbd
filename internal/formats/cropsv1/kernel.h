// kernel.h: the C of kernel_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_CROPSV1_KERNEL_H
#define FOLDCORPUS_CROPSV1_KERNEL_H

// no contraction of a*b+c into an FMA (cgo refuses -ffp-contract=off;
// the build targets no FMA instructions either)
#pragma GCC optimize("fp-contract=off")
#include <stdint.h>
#include <math.h>
#include "draws.h"

// cr_cands is passes.go's candidates loop (candidate for each atom that is
// not far), on a window of the Rand's outputs: the same draws, and the
// Gaussian values computed exactly with the C library's log, sin and cos
// (pyrandom.Log, Sin and Cos; the Go loop computes them approximately and
// exactly where the approximation could change a rounding, which gives
// the same values). It stops at a candidate whose draws the window may not
// hold, or whose value is a NaN (need: Go takes that candidate), and after
// max_cands candidates.

typedef struct {
	double lo[3], hi[3], flo[3], fhi[3];
	double s2, sigma, keep;
	int32_t bb[3];
	int32_t avx2; // screen with cr_screen_avx2
	int64_t n;    // candidates
	int64_t n0;   // the first n0 are the box's own atoms
} cr_cfg;

typedef struct {
	int64_t k;    // the next candidate
	int64_t pos;  // the next output of the window
	int64_t ninc; // members written
	int32_t cached, need;
	double cx, cu; // the cached pair's draws
} cr_state;

typedef struct {
	int32_t atom;
	int32_t n[3];
} cr_member; // passes.go's member


// The kernel's stream, between keep draws (a segment): the Gaussian
// values are numbered from 0; value 0 is the cached one when c0 = 1 (its
// pair's draws cx0, cu0), and the others come in pairs of 4 outputs from
// w[pos0]: value t >= c0 is pair (t - c0)/2's first (cos) or second (sin).
// A candidate takes 3 values whether or not its draws are looked at, so
// candidate i of a segment (counted from where T values had been taken)
// takes values T + 3i .. T + 3i + 2, with no state to carry from one
// candidate to the next: the candidates are screened (far from the box, or
// cut by the cheap bound) in a loop with no branch but its exit.

typedef struct {
	int64_t pos0, c0; // the segment's first output and cached value
	double cx0, cu0;
} cr_seg;

// cr_draw sets x, u and second for value t of the segment.
static inline void cr_draw(const cr_seg *sg, const uint32_t *w, int64_t t, double *x, double *u, int *second) {
	if (t < sg->c0) {
		*x = sg->cx0, *u = sg->cu0, *second = 1;
		return;
	}
	const uint32_t *q = w + sg->pos0 + 4 * ((t - sg->c0) >> 1);
	*x = py_gauss_x(q), *u = py_gauss_u(q), *second = (int)((t - sg->c0) & 1);
}

// cr_end is the output after the values 0..t-1 (their pairs), and
// whether the last pair's second value is left cached.
static inline int64_t cr_end(const cr_seg *sg, int64_t t, int *cached) {
	if (t < sg->c0) {
		*cached = 1;
		return sg->pos0;
	}
	int64_t f = t - sg->c0;
	*cached = (int)(f & 1);
	return sg->pos0 + 4 * ((f + 1) >> 1);
}

// cr_settle writes the stream after the segment's values 0..t-1 to st.
static void cr_settle(cr_state *st, const cr_seg *sg, const uint32_t *w, int64_t t) {
	int cached;
	st->pos = cr_end(sg, t, &cached);
	st->cached = cached;
	if (cached && t >= sg->c0) { // a new pair's second value
		const uint32_t *q = w + st->pos - 4;
		st->cx = py_gauss_x(q), st->cu = py_gauss_u(q);
	} else if (cached) {
		st->cx = sg->cx0, st->cu = sg->cu0;
	}
}

// cr_fit is how many candidates, at most lim, from the one whose first
// value is T have their values' pairs and a keep draw's two outputs in
// the window (nw outputs): candidate r's values end at pair
// (T + 3r + 3 - c0 + 1) >> 1, so it fits when 4 times that plus 2 is at
// most nw - pos0.
static inline int64_t cr_fit(const cr_seg *sg, int64_t nw, int64_t T, int64_t lim) {
	int64_t room = nw - 2 - sg->pos0;
	if (room < 0)
		return 0;
	int64_t num = 2 * (room / 4) - 3 - T + sg->c0; // 3r <= num
	if (num < 0)
		return 0;
	int64_t n = num / 3 + 1;
	return n < lim ? n : lim;
}

// cr_kept is the screen of candidate i, whose first value is t: 0 when it
// is far from the box or its noise cannot reach it on some axis where it
// lies outside (the cheap bound, on the values' u: of the pair of value t,
// or the cached value, and of the next pair, which the three values span).
static inline uint64_t cr_kept(const cr_cfg *c, const cr_seg *sg, const uint32_t *w, const int32_t *cand,
		const double *placed, int64_t i, int64_t t) {
	const double *p = placed + 3 * (int64_t)cand[i];
	int far = (p[0] < c->flo[0]) | (p[0] > c->fhi[0]) | (p[1] < c->flo[1]) | (p[1] > c->fhi[1]) |
			(p[2] < c->flo[2]) | (p[2] > c->fhi[2]);
	int64_t f0 = t - sg->c0, pa = f0 >= 0 ? f0 >> 1 : -1; // -1: the cached value
	const uint32_t *qb = w + sg->pos0 + 4 * (pa + 1);
	double ua = f0 >= 0 ? py_gauss_u(qb - 4) : sg->cu0, ub = py_gauss_u(qb);
	int rejected = 0;
	for (int j = 0; j < 3; j++) {
		int64_t f = f0 + j;
		double u = (f >= 0 ? f >> 1 : -1) == pa ? ua : ub;
		double lo = c->lo[j] - p[j], hi = p[j] - c->hi[j];
		double d = lo > 0.0 ? lo : 0.0;
		d = hi > d ? hi : d;
		rejected |= (d > 0) & (c->s2 * (1 - u) < d * d * u);
	}
	return !(far | rejected);
}

// cr_screen_any returns the screen's bits (cr_kept) of the n candidates
// from k (first value T), bit r for candidate k + r.
static uint64_t cr_screen_any(const cr_cfg *c, const cr_seg *sg, const uint32_t *w, const int32_t *cand,
		const double *placed, int64_t k, int64_t T, int64_t n) {
	uint64_t bits = 0;
	for (int64_t r = 0; r < n; r++)
		bits |= cr_kept(c, sg, w, cand, placed, k + r, T + 3 * r) << r;
	return bits;
}

#if defined(__x86_64__)
#include <immintrin.h>

// cr_screen_avx2 is cr_screen_any four candidates at a time: each lane does
// cr_kept's operations on its candidate (maxpd is its ternaries' max, NaNs
// included; the u's pair is (f0 + j) >> 1, -1 the cached value), so the
// bits are the same.
__attribute__((target("avx2"))) static uint64_t cr_screen_avx2(const cr_cfg *c, const cr_seg *sg,
		const uint32_t *w, const int32_t *cand, const double *placed, int64_t k, int64_t T, int64_t n) {
	const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0), s2 = _mm256_set1_pd(c->s2);
	const __m256d two52 = _mm256_set1_pd(0x1p52), m26 = _mm256_set1_pd(67108864.0),
			inv53 = _mm256_set1_pd(1.0 / 9007199254740992.0), cu0 = _mm256_set1_pd(sg->cu0);
	const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL), lo32 = _mm256_set1_epi64x(0xffffffffLL);
	const __m128i zero4 = _mm_setzero_si128(), opos = _mm_set1_epi32((int32_t)(sg->pos0 + 2));
	__m256d lo[3], hi[3], flo[3], fhi[3];
	for (int j = 0; j < 3; j++) {
		lo[j] = _mm256_set1_pd(c->lo[j]), hi[j] = _mm256_set1_pd(c->hi[j]);
		flo[j] = _mm256_set1_pd(c->flo[j]), fhi[j] = _mm256_set1_pd(c->fhi[j]);
	}
	// each lane's first value, from the segment's first pair
	__m128i f0 = _mm_add_epi32(_mm_set1_epi32((int32_t)(T - sg->c0)), _mm_setr_epi32(0, 3, 6, 9));
	uint64_t bits = 0;
	int64_t r = 0;
	for (; r + 4 <= n; r += 4, f0 = _mm_add_epi32(f0, _mm_set1_epi32(12))) {
		__m128i ci = _mm_loadu_si128((const __m128i *)(cand + k + r));
		__m128i i3 = _mm_add_epi32(ci, _mm_add_epi32(ci, ci));
		__m256d out = zero;
#pragma GCC unroll 3
		for (int j = 0; j < 3; j++) {
			__m256d p = _mm256_i32gather_pd(placed + j, i3, 8);
			out = _mm256_or_pd(out, _mm256_cmp_pd(p, flo[j], _CMP_LT_OQ));
			out = _mm256_or_pd(out, _mm256_cmp_pd(p, fhi[j], _CMP_GT_OQ));
			__m128i pa = _mm_srai_epi32(_mm_add_epi32(f0, _mm_set1_epi32(j)), 1);
			__m128i o = _mm_add_epi32(opos, _mm_slli_epi32(_mm_max_epi32(pa, zero4), 2));
			__m256i q = _mm256_i32gather_epi64((const long long *)w, o, 4); // w[o] | w[o+1] << 32
			__m256i a = _mm256_srli_epi64(_mm256_and_si256(q, lo32), 5), b = _mm256_srli_epi64(q, 38);
			__m256d da = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(a, magic)), two52);
			__m256d db = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(b, magic)), two52);
			__m256d u = _mm256_sub_pd(one, _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(da, m26), db), inv53));
			u = _mm256_blendv_pd(u, cu0, _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmplt_epi32(pa, zero4))));
			__m256d d = _mm256_max_pd(_mm256_sub_pd(p, hi[j]), _mm256_max_pd(_mm256_sub_pd(lo[j], p), zero));
			__m256d cut = _mm256_cmp_pd(_mm256_mul_pd(s2, _mm256_sub_pd(one, u)),
					_mm256_mul_pd(_mm256_mul_pd(d, d), u), _CMP_LT_OQ);
			out = _mm256_or_pd(out, _mm256_and_pd(_mm256_cmp_pd(d, zero, _CMP_GT_OQ), cut));
		}
		bits |= (uint64_t)(~_mm256_movemask_pd(out) & 0xf) << r;
	}
	// the upper halves cleared before any SSE code runs (GCC leaves them
	// dirty on the path to the scalar tail, which slows the SSE code that
	// follows, SHA-NI's in Go most)
	_mm256_zeroupper();
	for (; r < n; r++)
		bits |= cr_kept(c, sg, w, cand, placed, k + r, T + 3 * r) << r;
	return bits;
}
#else
#define cr_screen_avx2 cr_screen_any
#endif

// crScreenLen is how many candidates one screen decides (bits of a word):
// its bits hold until a keep draw starts a new segment.
#define crScreenLen 32

static void cr_cands(cr_state *st, const cr_cfg *c, const uint32_t *w, int64_t nw, const int32_t *cand,
		const double *placed, cr_member *inc, int64_t max_cands) {
	int64_t k = st->k, ninc = st->ninc;
	cr_seg sg = {st->pos, st->cached, st->cx, st->cu};
	int64_t T = 0; // values taken in the segment
	int64_t end = k + max_cands < c->n ? k + max_cands : c->n;
	uint64_t bits = 0; // the screen's bits of the candidates k .. k+nbits-1
	int64_t nbits = 0;
	st->need = 0;
	while (k < end) {
		// the next candidate the screen keeps: every one of the box's own
		// atoms (the first n0: inside the box on every axis, so never far
		// or cut), then the screen's bits; stop at a candidate whose
		// outputs (and a keep draw's) the window may not hold
		if (k < c->n0) {
			if (cr_fit(&sg, nw, T, 1) == 0) {
				st->need = 1;
				break;
			}
		} else {
			if (nbits == 0) {
				int64_t lim = end - k < crScreenLen ? end - k : crScreenLen;
				nbits = cr_fit(&sg, nw, T, lim);
				if (nbits == 0) {
					st->need = 1;
					break;
				}
				bits = c->avx2 ? cr_screen_avx2(c, &sg, w, cand, placed, k, T, nbits)
						: cr_screen_any(c, &sg, w, cand, placed, k, T, nbits);
			}
			if (bits == 0) {
				T += 3 * nbits, k += nbits, nbits = 0;
				continue;
			}
			int r = __builtin_ctzll(bits);
			T += 3 * r, k += r, bits >>= r, nbits -= r;
		}
		// candidate k: its values, first on the axes where it lies outside
		// the box (the likeliest to leave it out), then on the others; g
		// per pair, once
		const double *p = placed + 3 * (int64_t)cand[k];
		double dx[3], du[3];
		int second[3], order[3], no = 0;
		for (int j = 0; j < 3; j++) {
			cr_draw(&sg, w, T + j, &dx[j], &du[j], &second[j]);
			if (p[j] < c->lo[j] || p[j] > c->hi[j])
				order[no++] = j;
		}
		// the cheap bound again where it lies outside, tighter:
		// -ln u <= (1-u)/sqrt(u), as (1-u)/sqrt(u) + ln u falls to 0 at 1
		int out = 0;
		for (int o = 0; o < no; o++) {
			int j = order[o];
			double d = p[j] < c->lo[j] ? c->lo[j] - p[j] : p[j] - c->hi[j];
			out |= c->s2 * (1 - du[j]) < d * d * sqrt(du[j]);
		}
		for (int j = 0; j < 3; j++)
			if (!(p[j] < c->lo[j] || p[j] > c->hi[j]))
				order[no++] = j;
		int32_t n[3];
		double gs[3] = {0, 0, 0};
		for (int o = 0; o < 3 && !out; o++) {
			int j = order[o];
			double g = gs[j];
			if (g == 0) {
				g = sqrt(-2.0 * log(du[j]));
				for (int q = 0; q < 3; q++)
					if (du[q] == du[j] && dx[q] == dx[j])
						gs[q] = g;
			}
			double z = second[j] ? sin(dx[j]) * g : cos(dx[j]) * g;
			double v = p[j] + (0.0 + z * c->sigma);
			if (!(v == v)) {
				st->need = 1; // Go takes the candidate from its start
				goto done;
			}
			double vc = v > 0.0 ? v : 0.0;
			vc = vc < 999.9 ? vc : 999.9;
			double t = vc * 10;
			n[j] = (int32_t)((t + 0x1p52) - 0x1p52);
			out = n[j] / 100 != c->bb[j];
		}
		T += 3, k++;
		if (nbits > 0)
			bits >>= 1, nbits--;
		if (out)
			continue;
		// the keep draw, after the candidate's pairs; a new segment
		// starts after it (the screen's bits were the old one's)
		int cached;
		int64_t q = cr_end(&sg, T, &cached);
		double keep = py_random(w + q);
		if (cached && T >= sg.c0)
			sg.cx0 = py_gauss_x(w + q - 4), sg.cu0 = py_gauss_u(w + q - 4);
		sg.pos0 = q + 2, sg.c0 = cached, T = 0;
		bits = 0, nbits = 0;
		if (keep >= c->keep)
			continue;
		inc[ninc].atom = cand[k - 1];
		inc[ninc].n[0] = n[0], inc[ninc].n[1] = n[1], inc[ninc].n[2] = n[2];
		ninc++;
	}
done:
	st->k = k;
	st->ninc = ninc;
	cr_settle(st, &sg, w, T);
}

// cr_tenths is round(clamp(v, 0, 999.9) * 10) with ClampRound's
// operations (half to even by the 2^52 sum).
static inline double cr_tenths(double v) {
	v = v < 0 ? 0 : v;
	v = v > 999.9 ? 999.9 : v;
	return (v * 10 + 0x1p52) - 0x1p52;
}

// cr_cell is cell(v) = cr_tenths(v) // 100, as (int)(t * 0.01): for t =
// 100k + j (0 <= j <= 99) the product is k + j/100 times 1 + 2e-17 (0.01
// is a little above 1/100), at least k and short of k + 1 by far more
// than its rounding, so it truncates to k.
static inline int32_t cr_cell(double v) { return (int32_t)(cr_tenths(v) * 0.01); }

// cr_cells_block sets cb[q] = cr_cell(v[q]) for q < n.
static void cr_cells_block(const double *v, int64_t n, int32_t *cb) {
	for (int64_t q = 0; q < n; q++)
		cb[q] = cr_cell(v[q]);
}

#if defined(__x86_64__)
// cr_cells_block_avx2 is cr_cells_block four values at a time: maxpd and
// minpd are the ternaries (their operands in that order, NaNs included),
// then the same sum, difference, product and truncation.
__attribute__((target("avx2"))) static void cr_cells_block_avx2(const double *v, int64_t n, int32_t *cb) {
	const __m256d zero = _mm256_setzero_pd(), top = _mm256_set1_pd(999.9), ten = _mm256_set1_pd(10),
			two52 = _mm256_set1_pd(0x1p52), hundredth = _mm256_set1_pd(0.01);
	int64_t q = 0;
	for (; q + 4 <= n; q += 4) {
		__m256d x = _mm256_loadu_pd(v + q);
		x = _mm256_max_pd(zero, x); // zero > x ? zero : x
		x = _mm256_min_pd(top, x);  // top < x ? top : x
		x = _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(x, ten), two52), two52);
		_mm_storeu_si128((__m128i *)(cb + q), _mm256_cvttpd_epi32(_mm256_mul_pd(x, hundredth)));
	}
	_mm256_zeroupper();
	for (; q < n; q++)
		cb[q] = cr_cell(v[q]);
}
#else
#define cr_cells_block_avx2 cr_cells_block
#endif

// cr_cells is cells.go's cells: each block of atoms' boxes (cr_cell of
// every coordinate), then their keys, packed indices and bounds.
static void cr_cells(const double *coords, int64_t m, int32_t *key, int32_t *idx, int64_t *lohi, int32_t avx2) {
	int32_t lo0 = 100, lo1 = 100, lo2 = 100, hi0 = 0, hi1 = 0, hi2 = 0;
	int32_t cb[3 * 128];
	for (int64_t i0 = 0; i0 < m; i0 += 128) {
		int64_t n = m - i0 < 128 ? m - i0 : 128;
		if (avx2)
			cr_cells_block_avx2(coords + 3 * i0, 3 * n, cb);
		else
			cr_cells_block(coords + 3 * i0, 3 * n, cb);
		for (int64_t a = 0; a < n; a++) {
			int32_t b0 = cb[3 * a], b1 = cb[3 * a + 1], b2 = cb[3 * a + 2];
			lo0 = b0 < lo0 ? b0 : lo0, lo1 = b1 < lo1 ? b1 : lo1, lo2 = b2 < lo2 ? b2 : lo2;
			hi0 = b0 > hi0 ? b0 : hi0, hi1 = b1 > hi1 ? b1 : hi1, hi2 = b2 > hi2 ? b2 : hi2;
			key[i0 + a] = b0 * 10000 + b1 * 100 + b2;
			idx[i0 + a] = b0 << 16 | b1 << 8 | b2;
		}
	}
	lohi[0] = lo0, lohi[1] = lo1, lohi[2] = lo2, lohi[3] = hi0, lohi[4] = hi1, lohi[5] = hi2;
}

// cr_sort is the rest of cellIndex.build: the counting sort of the atoms
// by block index (start has size+1 entries, all 0).
static void cr_sort(int32_t *idx, int64_t m, int64_t n12, int64_t n2, int64_t base, int32_t *start, int64_t size,
		int32_t *order) {
	for (int64_t i = 0; i < m; i++) {
		int32_t v = idx[i];
		int32_t b = (int32_t)((int64_t)(v >> 16) * n12 + (int64_t)(v >> 8 & 0xff) * n2 + (v & 0xff) - base);
		idx[i] = b;
		start[b + 1]++;
	}
	for (int64_t i = 0; i < size; i++)
		start[i + 1] += start[i];
	for (int64_t i = 0; i < m; i++)
		order[start[idx[i]]++] = (int32_t)i;
	for (int64_t b = size; b > 0; b--)
		start[b] = start[b - 1];
	start[0] = 0;
}

#endif // FOLDCORPUS_CROPSV1_KERNEL_H
