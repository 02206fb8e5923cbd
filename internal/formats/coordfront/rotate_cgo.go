//go:build cgo && amd64

package coordfront

/*
#cgo CFLAGS: -O2
#include "rotate.h"
*/
import "C"

import (
	"math"

	"golang.org/x/sys/cpu"
)

// rotateCOK: the C kernel is built in and the CPU has FMA.
var rotateCOK = cpu.X86.HasFMA

// rotateC is rotateGo with the C kernel (cf_rotate); coord is not empty.
func rotateC(placed, coord [][3]float64, cen [3]float64, R *[3][3]float64) (lo, hi [3]float64) {
	var lohi [6]C.double
	var nan [3]C.int32_t
	C.cf_rotate((*C.double)(&placed[0][0]), (*C.double)(&coord[0][0]), C.int64_t(len(coord)),
		(*C.double)(&cen[0]), (*C.double)(&R[0][0]), &lohi[0], &nan[0])
	for j := range 3 {
		lo[j], hi[j] = float64(lohi[j]), float64(lohi[3+j])
		if nan[j] != 0 {
			lo[j], hi[j] = math.NaN(), math.NaN()
		}
	}
	return lo, hi
}
