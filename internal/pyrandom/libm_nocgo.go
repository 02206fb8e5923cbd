//go:build !cgo

package pyrandom

import "math"

// ExactLibm reports whether Log, Cos and Sin call the C library (glibc)
// itself, as CPython does. In this build (no cgo) they are Go's math
// functions, which differ from glibc in the last bit for a fraction of
// inputs: Gauss values can then differ from CPython's by one ulp, and a
// document that depends on such a value (a ceil or a rank tie) can differ.
const ExactLibm = false

// Log is log(x) (Go's math.Log: see ExactLibm).
func Log(x float64) float64 { return math.Log(x) }

// Cos is cos(x) (Go's math.Cos: see ExactLibm).
func Cos(x float64) float64 { return math.Cos(x) }

// Sin is sin(x) (Go's math.Sin: see ExactLibm).
func Sin(x float64) float64 { return math.Sin(x) }

func gaussPairs(x, u, z []float64) {
	for i := range x {
		g := math.Sqrt(-2.0 * math.Log(u[i]))
		z[2*i] = math.Cos(x[i]) * g
		z[2*i+1] = math.Sin(x[i]) * g
	}
}

// gaussPairsApprox is gaussPairs: in this build the exact path is Go's
// math already.
func gaussPairsApprox(x, u, z []float64) { gaussPairs(x, u, z) }
