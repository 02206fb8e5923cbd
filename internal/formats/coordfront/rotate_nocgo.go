//go:build !cgo || !amd64

package coordfront

// rotateCOK: without cgo on amd64 there is no C kernel.
const rotateCOK = false

func rotateC(placed, coord [][3]float64, cen [3]float64, R *[3][3]float64) (lo, hi [3]float64) {
	return rotateGo(placed, coord, cen, R)
}
