//go:build !cgo

package confind

// nerfRows places one atom over many rows (see nerfRowsGo).
func nerfRows(idx []int32, coef []float64, stride int, a, b, c, ab, out, obc []float64) {
	nerfRowsGo(idx, coef, stride, a, b, c, ab, out, obc)
}
