//go:build !cgo

package confind

import "math"

// ExactAtan2 reports whether atan2 is the C library's (glibc), as under
// numba and CPython. In this build (no cgo) it is Go's math.Atan2, which can
// differ by an ulp: an angle exactly on a phi/psi bin edge could then fall
// in the neighbouring bin.
const ExactAtan2 = false

func atan2(y, x float64) float64 { return math.Atan2(y, x) }
