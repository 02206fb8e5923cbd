//go:build !cgo

package confind

// pair is pairGo in this build (no cgo).
func pair(ws *workspace, i, j int, cp []float64, c2 float64) float64 { return pairGo(ws, i, j, cp, c2) }

func (ws *workspace) pairsReady() {}
