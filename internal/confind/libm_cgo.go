//go:build cgo

package confind

/*
#cgo LDFLAGS: -lm
#include "libm.h"
*/
import "C"

// ExactAtan2 reports whether atan2 is the C library's (glibc), as under
// numba and CPython, so that an angle on a bin edge rounds as pyconfind's.
const ExactAtan2 = true

func atan2(y, x float64) float64 { return float64(C.cf_atan2(C.double(y), C.double(x))) }
