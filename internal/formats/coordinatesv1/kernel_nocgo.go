//go:build !cgo

package coordinatesv1

import "github.com/foldcorpus/foldcorpus/internal/formats/coordfront"

// kernelOK: without cgo there are no C kernels (and New fails: the
// format needs the C library's log, sin and cos).
const kernelOK = false

type kernelScratch struct{}

var windowCap int // as with cgo (TestKernels sets it, then skips)

func (g *Generator) drawEventsC(*coordfront.Front, Config, int) section {
	panic("coordinatesv1: no C kernels without cgo")
}

func (g *Generator) writeEventsC(*writing, *coordfront.Writer, *Document) int {
	panic("coordinatesv1: no C kernels without cgo")
}
