//go:build !cgo

package confind

// pairs sets num[k] to pairGo of positions i < js[k], in the order of js
// (this build has no cgo).
func pairs(ws *workspace, i int, js []int32, cp []float64, c2 float64, num []float64) {
	for k, j := range js {
		num[k] = pairGo(ws, i, int(j), cp, c2)
	}
}

func (ws *workspace) pairsReady() {}
