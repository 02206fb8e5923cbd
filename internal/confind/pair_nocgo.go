//go:build !cgo

package confind

// pairs is pairsGo (this build has no cgo).
func pairs(ws *workspace, is, off, js []int32, cp []float64, c2 float64, num []float64) {
	pairsGo(ws, is, off, js, cp, c2, num)
}

func (ws *workspace) pairsReady() {}
