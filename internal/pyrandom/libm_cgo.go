//go:build cgo

package pyrandom

/*
#cgo CFLAGS: -O2 -fno-builtin-log -fno-builtin-sin -fno-builtin-cos
#cgo LDFLAGS: -lm
#include "libm.h"
*/
import "C"

import "unsafe"

// useAVX2 selects the C functions compiled for AVX2 (1) or for any CPU
// (0); both give the same bits.
var useAVX2 = C.have_avx2()

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

// gaussPairsApprox is gaussPairs with approximate log, sin and cos (within
// GaussApproxErr), in one call into C.
func gaussPairsApprox(x, u, z []float64) {
	if len(x) == 0 {
		return
	}
	C.gauss_pairs_approx((*C.double)(unsafe.Pointer(&x[0])), (*C.double)(unsafe.Pointer(&u[0])),
		(*C.double)(unsafe.Pointer(&z[0])), C.long(len(x)), useAVX2)
}
