//go:build !cgo

package cropsv1

import "github.com/foldcorpus/foldcorpus/internal/formats/coordfront"

// kernelOK: without cgo there is no C kernel (and New fails: the format
// needs the C library's log, sin and cos).
const kernelOK = false

// as with cgo (TestKernel sets them, then skips)
var (
	windowCap  int
	screenAVX2 int32
)

type kernelArgs struct{}

func (g *Generator) candidatesC(*coordfront.Front, *cropBox, []int32, int, []member) []member {
	panic("cropsv1: no C kernel without cgo")
}

// as with cgo (TestPickKernel sets them, then skips)
var (
	pickWiden   float64
	pickAllSlow bool
)

func (p *picker) drawAllC(_ []float64, picks []int32) ([]int32, bool) { return picks, false }

func cellsC([][3]float64, []int32, []int32) (lo, hi [3]int) {
	panic("cropsv1: no C kernel without cgo")
}

func sortC([]int32, int, int, int, []int32, []int32) { panic("cropsv1: no C kernel without cgo") }
