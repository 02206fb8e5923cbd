// prune.h: the C of prune_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_CONFIND_PRUNE_H
#define FOLDCORPUS_CONFIND_PRUNE_H

#pragma GCC optimize("fp-contract=off")
#include <stdint.h>
#include <string.h>
#include <immintrin.h>

// The cell of coordinate v along an axis of n cells (pruner's grid):
// truncated toward zero and clamped, as grid.coord.
static inline long cell_of(double v, double lo, double inv, long n) {
	double t = (v - lo) * inv;
	if (!(t >= 0)) {
		return 0;
	}
	if (t >= (double)n) {
		return n - 1;
	}
	long i = (long)t;
	return i < n ? i : n - 1;
}

// clash_hit records a clash with position t: it returns 1 to stop (the
// first clash, without all), -1 when hits is full, 0 to go on (all).
static inline int clash_hit(int32_t t, int all, int32_t *hits, long *nh, long cap) {
	if (!all) {
		return 1;
	}
	if (*nh == cap) {
		return -1;
	}
	hits[(*nh)++] = t;
	return 0;
}

// clash_any reports whether (px, py, pz) is within clash of a point of the
// cells x0..x1, y0..y1, z0..z1 of a position other than pos (pr.test);
// with all, it adds every such position to hits (-1: more than cap).
static int clash_any(double px, double py, double pz, long x0, long x1, long y0, long y1, long z0, long z1, long ny, long nz,
		const int32_t *start, const double *pts, const int32_t *tag, int32_t pos, double c2, int all, int32_t *hits, long *nh, long cap) {
	int hit = 0, h;
	for (long ix = x0; ix <= x1; ix++) {
		for (long iy = y0; iy <= y1; iy++) {
			long base = (ix * ny + iy) * nz;
			for (long q = start[base + z0]; q < start[base + z1 + 1]; q++) {
				double dx = px - pts[3 * q], dy = py - pts[3 * q + 1], dz = pz - pts[3 * q + 2];
				if ((dx * dx + dy * dy) + dz * dz > c2 || tag[q] == pos) {
					continue;
				}
				hit = 1;
				if ((h = clash_hit(tag[q], all, hits, nh, cap)) != 0) {
					return h;
				}
			}
		}
	}
	return hit;
}

// clash_avx2 is clash_any over four points at once, the points by
// coordinate (sx, sy, sz, each padded by 4): the same comparisons (not
// greater than the squared clash distance, as the negation of >).
__attribute__((target("avx2,bmi"))) static int clash_avx2(double px, double py, double pz, long x0, long x1, long y0, long y1, long z0, long z1,
		long ny, long nz, const int32_t *start, const double *sx, const double *sy, const double *sz, const int32_t *tag, int32_t pos,
		double c2, int all, int32_t *hits, long *nh, long cap) {
	__m256d ax = _mm256_set1_pd(px), ay = _mm256_set1_pd(py), az = _mm256_set1_pd(pz), cc = _mm256_set1_pd(c2);
	int hit = 0, h;
	for (long ix = x0; ix <= x1; ix++) {
		for (long iy = y0; iy <= y1; iy++) {
			long base = (ix * ny + iy) * nz;
			long q1 = start[base + z1 + 1];
			for (long q = start[base + z0]; q < q1; q += 4) {
				__m256d dx = _mm256_sub_pd(ax, _mm256_loadu_pd(sx + q));
				__m256d dy = _mm256_sub_pd(ay, _mm256_loadu_pd(sy + q));
				__m256d dz = _mm256_sub_pd(az, _mm256_loadu_pd(sz + q));
				__m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
				unsigned near = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, cc, _CMP_NGT_UQ));
				if (q1 - q < 4) {
					near &= (1u << (q1 - q)) - 1;
				}
				while (near) {
					long k = q + __builtin_ctz(near);
					near &= near - 1;
					if (tag[k] == pos) {
						continue;
					}
					hit = 1;
					if ((h = clash_hit(tag[k], all, hits, nh, cap)) != 0) {
						return h;
					}
				}
			}
		}
	}
	return hit;
}

// cf_prune is pruneGo over rows [r_begin, r_end) of the n rows of a
// template of m atoms (those before r_begin done): at holds coordinate d
// of atom k of row r at (3k+d)n+r, st (zeroed) the status of atom k of row
// r at kn+r. It writes alive and, with all (ALA), the clashing positions
// into hits (at most cap, with repeats); it returns their number, or -1
// when cap was too small.
static long cf_prune(int avx2, const double *sx, const double *sy, const double *sz, long r_begin, long r_end, long n, long m, const unsigned char *tested, const double *at, signed char *st,
		int all, int32_t pos, const double *glo, double inv, long nx, long ny, long nz,
		const int32_t *start, const double *pts, const int32_t *tag, double clash, double c2,
		unsigned char *alive, int32_t *hits, long cap) {
	long nh = 0;
	double r0 = clash + 1e-9;
	for (long r = r_begin; r < r_end; r++) {
		int pruned = 0;
		for (long k = 0; k < m; k++) {
			if (!tested[k]) {
				continue;
			}
			double px = at[3 * k * n + r], py = at[(3 * k + 1) * n + r], pz = at[(3 * k + 2) * n + r];
			long a = k * n + r;
			signed char s;
			if (r > 0 && st[a - 1] != 0 && memcmp(&px, &at[3 * k * n + r - 1], 8) == 0 &&
				memcmp(&py, &at[(3 * k + 1) * n + r - 1], 8) == 0 && memcmp(&pz, &at[(3 * k + 2) * n + r - 1], 8) == 0) {
				s = st[a - 1];
			} else {
				long x0 = cell_of(px - r0, glo[0], inv, nx), x1 = cell_of(px + r0, glo[0], inv, nx);
				long y0 = cell_of(py - r0, glo[1], inv, ny), y1 = cell_of(py + r0, glo[1], inv, ny);
				long z0 = cell_of(pz - r0, glo[2], inv, nz), z1 = cell_of(pz + r0, glo[2], inv, nz);
				int hit = avx2 ? clash_avx2(px, py, pz, x0, x1, y0, y1, z0, z1, ny, nz, start, sx, sy, sz, tag, pos, c2, all, hits, &nh, cap)
					: clash_any(px, py, pz, x0, x1, y0, y1, z0, z1, ny, nz, start, pts, tag, pos, c2, all, hits, &nh, cap);
				if (hit < 0) {
					return -1;
				}
				s = hit ? 2 : 1;
			}
			st[a] = s;
			if (s == 2) {
				pruned = 1;
				if (!all) {
					break;
				}
			}
		}
		alive[r] = !pruned;
	}
	return nh;
}

#endif // FOLDCORPUS_CONFIND_PRUNE_H
