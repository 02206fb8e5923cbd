// rotate.h: the C of rotate_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_COORDFRONT_ROTATE_H
#define FOLDCORPUS_COORDFRONT_ROTATE_H

// a*b+c is never contracted: the only fused operations are the fma calls
#pragma GCC optimize("fp-contract=off")
#include <stdint.h>
#include <math.h>

// cf_rotate is rotateGo: the same operations in the same order (fma is
// math.FMA, the ternaries its compares), with the bounds and NaN flags in
// registers.
__attribute__((target("fma"))) static void cf_rotate(double *placed, const double *coord, int64_t m,
		const double *cen, const double *R, double *lohi, int32_t *nan) {
	const double c0 = cen[0], c1 = cen[1], c2 = cen[2];
	const double r00 = R[0], r01 = R[1], r02 = R[2], r10 = R[3], r11 = R[4], r12 = R[5], r20 = R[6], r21 = R[7],
			r22 = R[8];
	double lo0 = INFINITY, lo1 = INFINITY, lo2 = INFINITY, hi0 = -INFINITY, hi1 = -INFINITY, hi2 = -INFINITY;
	int32_t n0 = 0, n1 = 0, n2 = 0;
	for (int64_t i = 0; i < m; i++) {
		const double *c = coord + 3 * i;
		double d0 = c[0] - c0, d1 = c[1] - c1, d2 = c[2] - c2;
		double v0 = __builtin_fma(d2, r02, __builtin_fma(d1, r01, d0 * r00));
		double v1 = __builtin_fma(d2, r12, __builtin_fma(d1, r11, d0 * r10));
		double v2 = __builtin_fma(d2, r22, __builtin_fma(d1, r21, d0 * r20));
		double *p = placed + 3 * i;
		p[0] = v0, p[1] = v1, p[2] = v2;
		n0 |= v0 != v0, n1 |= v1 != v1, n2 |= v2 != v2;
		lo0 = v0 < lo0 ? v0 : lo0, hi0 = v0 > hi0 ? v0 : hi0;
		lo1 = v1 < lo1 ? v1 : lo1, hi1 = v1 > hi1 ? v1 : hi1;
		lo2 = v2 < lo2 ? v2 : lo2, hi2 = v2 > hi2 ? v2 : hi2;
	}
	lohi[0] = lo0, lohi[1] = lo1, lohi[2] = lo2, lohi[3] = hi0, lohi[4] = hi1, lohi[5] = hi2;
	nan[0] = n0, nan[1] = n1, nan[2] = n2;
}

#endif // FOLDCORPUS_COORDFRONT_ROTATE_H
