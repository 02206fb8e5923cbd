// libm.h: the C of libm_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_PYRANDOM_LIBM_H
#define FOLDCORPUS_PYRANDOM_LIBM_H

#include <math.h>
#include <string.h>

static double py_log(double x) { return log(x); }
static double py_cos(double x) { return cos(x); }
static double py_sin(double x) { return sin(x); }

// gauss_pairs computes, for each i, z0 = cos(x[i])*g and z1 = sin(x[i])*g
// with g = sqrt(-2*log(u[i])): CPython's gauss() pair, one cgo call for many.
static void gauss_pairs(const double *x, const double *u, double *z, long n) {
	for (long i = 0; i < n; i++) {
		double g = sqrt(-2.0 * log(u[i]));
		z[2*i] = cos(x[i]) * g;
		z[2*i+1] = sin(x[i]) * g;
	}
}

// gauss_pairs_approx is gauss_pairs with log, sin and cos replaced by
// branch-free approximations on four lanes at a time (GCC/Clang vector
// extension): fdlibm's log (as Go's math.Log) and Cephes's sin/cos kernels
// (as Go's math.Sin/Cos) after reducing x in [0, 2pi) by the nearest
// multiple k of pi/2. Each is within a few ulps of the true function, so z
// is within GaussApproxErr of gauss_pairs's (see gaussapprox.go).
typedef double v4d __attribute__((vector_size(32)));
typedef unsigned long long v4u __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));

// vlog sets *v to log(*v) (vectors by pointer: passing 32-byte vectors by
// value changes the ABI without AVX).
static inline __attribute__((always_inline)) void vlog(v4d *v) {
	v4d u = *v;
	// u = m * 2^e with m in [sqrt(1/2), sqrt(2)); u is in (0, 1], normal
	v4u b = (v4u)u;
	v4i e = (v4i)(b >> 52) - 1022;
	v4d m = (v4d)((b & 0x000fffffffffffffULL) | 0x3fe0000000000000ULL); // [0.5, 1)
	v4i small = m < 0.70710678118654752440;
	m = m + (v4d)((v4i)m & small);
	e = e + small;
	v4d k = (v4d)(e + 0x4338000000000000LL) - 0x1.8p52; // (double)e
	v4d f = m - 1.0;
	v4d s = f / (2.0 + f);
	v4d s2 = s * s, s4 = s2 * s2;
	v4d t1 = s2 * (6.666666666666735130e-01 + s4 * (2.857142874366239149e-01 + s4 * (1.818357216161805012e-01 + s4 * 1.479819860511658591e-01)));
	v4d t2 = s4 * (3.999999999940941908e-01 + s4 * (2.222219843214978396e-01 + s4 * 1.531383769920937332e-01));
	v4d R = t1 + t2;
	v4d hfsq = 0.5 * f * f;
	*v = k * 6.93147180369123816490e-01 - ((hfsq - (s * (hfsq + R) + k * 1.90821492927058770002e-10)) - f);
}

static inline __attribute__((always_inline)) void vsincos(const v4d *xp, v4d *sx, v4d *cx) {
	v4d x = *xp;
	v4d kd = x * 0.63661977236758134308 + 0x1.8p52; // round(x / (pi/2)) + 1.5*2^52
	v4u q = (v4u)kd;                                   // its low bits: the quadrant
	kd = kd - 0x1.8p52;
	v4d y = kd + kd; // in units of pi/4, as Go's sin.go
	v4d r = ((x - y * 7.85398125648498535156e-1) - y * 3.77489470793079817668e-8) - y * 2.69515142907905952645e-15;
	v4d zz = r * r;
	v4d sr = r + r * zz * (((((1.58962301576546568060e-10 * zz - 2.50507477628578072866e-8) * zz + 2.75573136213857245213e-6) * zz - 1.98412698295895385996e-4) * zz + 8.33333333332211858878e-3) * zz - 1.66666666666666307295e-1);
	v4d cr = 1.0 - 0.5 * zz + zz * zz * (((((-1.13585365213876817300e-11 * zz + 2.08757008419747316778e-9) * zz - 2.75573141792967388112e-7) * zz + 2.48015872888517045348e-5) * zz - 1.38888888888730564116e-3) * zz + 4.16666666666665929218e-2);
	// quadrant q: sin x = sin r, cos r, -sin r, -cos r; cos x = cos r, -sin r, -cos r, sin r
	v4u swap = -(q & 1);
	v4u si = (v4u)sr, ci = (v4u)cr;
	v4u so = (ci & swap) | (si & ~swap);
	v4u co = (si & swap) | (ci & ~swap);
	*sx = (v4d)(so ^ ((q & 2) << 62));
	*cx = (v4d)(co ^ (((q + 1) & 2) << 62));
}

static inline __attribute__((always_inline)) void approx4(const double *x, const double *u, double *z) {
	v4d xv, uv, s, c, t;
	memcpy(&xv, x, 32);
	memcpy(&uv, u, 32);
	vlog(&uv);
	t = -2.0 * uv;
	vsincos(&xv, &s, &c);
	for (int l = 0; l < 4; l++) {
		double g = __builtin_sqrt(t[l]);
		z[2*l] = c[l] * g;
		z[2*l+1] = s[l] * g;
	}
}

// GAUSS_PAIRS_APPROX defines gauss_pairs_approx under a name: once for any
// CPU and once compiled for AVX2 (the same operations on 256-bit
// registers, no FMA: the same bits).
#define GAUSS_PAIRS_APPROX(name) \
static void name(const double *x, const double *u, double *z, long n) { \
	long i = 0; \
	for (; i + 4 <= n; i += 4) \
		approx4(x + i, u + i, z + 2*i); \
	if (i < n) { \
		double xt[4] = {0, 0, 0, 0}, ut[4] = {1, 1, 1, 1}, zt[8]; \
		for (long l = 0; i + l < n; l++) { \
			xt[l] = x[i+l]; \
			ut[l] = u[i+l]; \
		} \
		approx4(xt, ut, zt); \
		memcpy(z + 2*i, zt, 2*(n-i)*sizeof(double)); \
	} \
}

GAUSS_PAIRS_APPROX(gauss_pairs_approx_any)

#if defined(__x86_64__)
#include <cpuid.h>

__attribute__((target("avx2"))) GAUSS_PAIRS_APPROX(gauss_pairs_approx_avx2)

// have_avx2 reports whether the CPU and the OS support AVX2.
static int have_avx2(void) {
	unsigned a, b, c, d, lo, hi;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return 0;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6 || __get_cpuid_max(0, 0) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	return (b & bit_AVX2) != 0;
}
#else
#define gauss_pairs_approx_avx2 gauss_pairs_approx_any
static int have_avx2(void) { return 0; }
#endif

static void gauss_pairs_approx(const double *x, const double *u, double *z, long n, int avx2) {
	if (avx2)
		gauss_pairs_approx_avx2(x, u, z, n);
	else
		gauss_pairs_approx_any(x, u, z, n);
}

#endif // FOLDCORPUS_PYRANDOM_LIBM_H
