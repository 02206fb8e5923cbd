//go:build cgo

package confind

/*
#cgo CFLAGS: -O3
#include "nerf.h"
*/
import "C"

import "unsafe"

// haveAVX2 selects the C function compiled for AVX2: the same operations
// on four rows at once, the same bits (TestNerfRows).
var haveAVX2 = C.cf_have_avx2() != 0

// nerfKernel selects nerfRows' implementation (tests compare them): 0 the
// C function for this CPU, 1 the C function for any CPU, 2 nerfRowsGo.
var nerfKernel = 0

// nerfRows places one atom over many rows (see nerfRowsGo), in C (one call
// per atom of a template's rows).
func nerfRows(idx []int32, coef []float64, stride int, a, b, c, ab, out, obc []float64) {
	n := len(idx)
	if n == 0 {
		return
	}
	if nerfKernel == 2 {
		nerfRowsGo(idx, coef, stride, a, b, c, ab, out, obc)
		return
	}
	// the last row's coefficients and the arrays' extents, checked here
	_ = coef[int(idx[n-1])*stride+3]
	_, _, _, _, _ = a[3*n-1], b[3*n-1], c[3*n-1], out[3*n-1], obc[3*n-1]
	for _, row := range idx {
		if int(row)*stride+3 >= len(coef) {
			panic("confind: nerfRows: row out of range")
		}
	}
	var abp *C.double
	if ab != nil {
		_ = ab[3*n-1]
		abp = (*C.double)(unsafe.Pointer(&ab[0]))
	}
	avx2 := C.int(0)
	if haveAVX2 && nerfKernel == 0 {
		avx2 = 1
	}
	C.cf_nerf_rows(avx2, C.long(n), (*C.int32_t)(unsafe.Pointer(&idx[0])), (*C.double)(unsafe.Pointer(&coef[0])), C.long(stride),
		(*C.double)(unsafe.Pointer(&a[0])), (*C.double)(unsafe.Pointer(&b[0])), (*C.double)(unsafe.Pointer(&c[0])), abp,
		(*C.double)(unsafe.Pointer(&out[0])), (*C.double)(unsafe.Pointer(&obc[0])))
}
