//go:build cgo

package pyrandom

/*
#cgo CFLAGS: -O2 -fno-builtin-log -fno-builtin-sin -fno-builtin-cos
#cgo LDFLAGS: -lm
#include <math.h>

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
*/
import "C"

import "unsafe"

// ExactLibm reports whether Log, Cos and Sin call the C library (glibc)
// itself, as CPython does, so that results match CPython bit for bit on the
// same machine. It is false in builds without cgo.
//
// glibc picks an FMA or an SSE2 variant of log/sin/cos by CPU: on this
// project's machines (glibc 2.36) the two disagree in the last bit for about
// 0.07% of gauss() values (669 of 10^6, measured with GLIBC_TUNABLES masking
// FMA). CPython makes the same choice on the same machine, so values match
// CPython there; across machines a document could change only if such a
// last-bit difference flipped a ceil or a rank order (none of the golden
// documents does).
const ExactLibm = true

// Log is the C library's log(x), the function behind CPython's math.log.
func Log(x float64) float64 { return float64(C.py_log(C.double(x))) }

// Cos is the C library's cos(x).
func Cos(x float64) float64 { return float64(C.py_cos(C.double(x))) }

// Sin is the C library's sin(x).
func Sin(x float64) float64 { return float64(C.py_sin(C.double(x))) }

// gaussPairs fills z[2i], z[2i+1] with cos(x[i])*g, sin(x[i])*g where
// g = sqrt(-2*log(u[i])), in one call into the C library.
func gaussPairs(x, u, z []float64) {
	if len(x) == 0 {
		return
	}
	C.gauss_pairs((*C.double)(unsafe.Pointer(&x[0])), (*C.double)(unsafe.Pointer(&u[0])),
		(*C.double)(unsafe.Pointer(&z[0])), C.long(len(x)))
}
