// nerf.h: the C of nerf_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_CONFIND_NERF_H
#define FOLDCORPUS_CONFIND_NERF_H

#pragma GCC optimize("fp-contract=off")
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

// One NeRF step per row r, in nerfRowsGo's operation order, with IEEE
// operations only: the vector forms of +, -, *, / and sqrt round as the
// scalar ones, and no fused multiply-add is written (gcc contracts only
// with -mfma or a target that has it, which neither function has).
static inline void nerf_row(long r, long n, const int32_t *idx, const double *coef, long stride,
		const double *a, const double *b, const double *c, const double *ab, double *out, double *obc) {
	const double *k = coef + (long)idx[r] * stride;
	double bx = b[r], by = b[n + r], bz = b[2 * n + r];
	double cx = c[r], cy = c[n + r], cz = c[2 * n + r];
	double ux = cx - bx, uy = cy - by, uz = cz - bz;
	double l = sqrt((ux * ux + uy * uy) + uz * uz);
	ux = ux / l; uy = uy / l; uz = uz / l;
	double vx, vy, vz;
	if (ab) {
		vx = ab[r]; vy = ab[n + r]; vz = ab[2 * n + r];
	} else {
		vx = bx - a[r]; vy = by - a[n + r]; vz = bz - a[2 * n + r];
		double m = sqrt((vx * vx + vy * vy) + vz * vz);
		vx = vx / m; vy = vy / m; vz = vz / m;
	}
	double nx = vy * uz - vz * uy, ny = vz * ux - vx * uz, nz = vx * uy - vy * ux;
	double q = sqrt((nx * nx + ny * ny) + nz * nz);
	nx = nx / q; ny = ny / q; nz = nz / q;
	double mx = ny * uz - nz * uy, my = nz * ux - nx * uz, mz = nx * uy - ny * ux;
	out[r] = cx + k[0] * ((k[1] * ux + k[2] * mx) + k[3] * nx);
	out[n + r] = cy + k[0] * ((k[1] * uy + k[2] * my) + k[3] * ny);
	out[2 * n + r] = cz + k[0] * ((k[1] * uz + k[2] * mz) + k[3] * nz);
	obc[r] = ux; obc[n + r] = uy; obc[2 * n + r] = uz;
}

static void nerf_any(long n, const int32_t *idx, const double *coef, long stride,
		const double *a, const double *b, const double *c, const double *ab, double *out, double *obc) {
	for (long r = 0; r < n; r++) {
		nerf_row(r, n, idx, coef, stride, a, b, c, ab, out, obc);
	}
}

#define LD(p) _mm256_loadu_pd(p)
#define ST(p, v) _mm256_storeu_pd(p, v)
#define ADD _mm256_add_pd
#define SUB _mm256_sub_pd
#define MUL _mm256_mul_pd
#define DIV _mm256_div_pd

// nerf_avx2 is nerf_row for four rows at a time.
__attribute__((target("avx2"))) static void nerf_avx2(long n, const int32_t *idx, const double *coef, long stride,
		const double *a, const double *b, const double *c, const double *ab, double *out, double *obc) {
	long r = 0;
	for (; r + 4 <= n; r += 4) {
		const double *k0 = coef + (long)idx[r] * stride, *k1 = coef + (long)idx[r + 1] * stride;
		const double *k2 = coef + (long)idx[r + 2] * stride, *k3 = coef + (long)idx[r + 3] * stride;
		__m256d K0 = _mm256_set_pd(k3[0], k2[0], k1[0], k0[0]);
		__m256d K1 = _mm256_set_pd(k3[1], k2[1], k1[1], k0[1]);
		__m256d K2 = _mm256_set_pd(k3[2], k2[2], k1[2], k0[2]);
		__m256d K3 = _mm256_set_pd(k3[3], k2[3], k1[3], k0[3]);
		__m256d bx = LD(b + r), by = LD(b + n + r), bz = LD(b + 2 * n + r);
		__m256d cx = LD(c + r), cy = LD(c + n + r), cz = LD(c + 2 * n + r);
		__m256d ux = SUB(cx, bx), uy = SUB(cy, by), uz = SUB(cz, bz);
		__m256d l = _mm256_sqrt_pd(ADD(ADD(MUL(ux, ux), MUL(uy, uy)), MUL(uz, uz)));
		ux = DIV(ux, l); uy = DIV(uy, l); uz = DIV(uz, l);
		__m256d vx, vy, vz;
		if (ab) {
			vx = LD(ab + r); vy = LD(ab + n + r); vz = LD(ab + 2 * n + r);
		} else {
			vx = SUB(bx, LD(a + r)); vy = SUB(by, LD(a + n + r)); vz = SUB(bz, LD(a + 2 * n + r));
			__m256d m = _mm256_sqrt_pd(ADD(ADD(MUL(vx, vx), MUL(vy, vy)), MUL(vz, vz)));
			vx = DIV(vx, m); vy = DIV(vy, m); vz = DIV(vz, m);
		}
		__m256d nx = SUB(MUL(vy, uz), MUL(vz, uy)), ny = SUB(MUL(vz, ux), MUL(vx, uz)), nz = SUB(MUL(vx, uy), MUL(vy, ux));
		__m256d q = _mm256_sqrt_pd(ADD(ADD(MUL(nx, nx), MUL(ny, ny)), MUL(nz, nz)));
		nx = DIV(nx, q); ny = DIV(ny, q); nz = DIV(nz, q);
		__m256d mx = SUB(MUL(ny, uz), MUL(nz, uy)), my = SUB(MUL(nz, ux), MUL(nx, uz)), mz = SUB(MUL(nx, uy), MUL(ny, ux));
		ST(out + r, ADD(cx, MUL(K0, ADD(ADD(MUL(K1, ux), MUL(K2, mx)), MUL(K3, nx)))));
		ST(out + n + r, ADD(cy, MUL(K0, ADD(ADD(MUL(K1, uy), MUL(K2, my)), MUL(K3, ny)))));
		ST(out + 2 * n + r, ADD(cz, MUL(K0, ADD(ADD(MUL(K1, uz), MUL(K2, mz)), MUL(K3, nz)))));
		ST(obc + r, ux); ST(obc + n + r, uy); ST(obc + 2 * n + r, uz);
	}
	for (; r < n; r++) {
		nerf_row(r, n, idx, coef, stride, a, b, c, ab, out, obc);
	}
}

static int cf_have_avx2(void) {
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

static void cf_nerf_rows(int avx2, long n, const int32_t *idx, const double *coef, long stride,
		const double *a, const double *b, const double *c, const double *ab, double *out, double *obc) {
	if (avx2) {
		nerf_avx2(n, idx, coef, stride, a, b, c, ab, out, obc);
	} else {
		nerf_any(n, idx, coef, stride, a, b, c, ab, out, obc);
	}
}

#endif // FOLDCORPUS_CONFIND_NERF_H
