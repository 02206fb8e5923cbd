package mmcif

import "golang.org/x/sys/cpu"

// haveLineMasks reports whether lineMasks runs here (AVX2).
var haveLineMasks = cpu.X86.HasAVX2

//go:noescape
func lineMasksAVX2(cur, prev *byte, chunks int, m *lineMasks)

// lineMasksAt fills m for the chunks 32-byte blocks at data[p:] and
// data[pp:]; the caller checks that they are in data.
func lineMasksAt(data []byte, p, pp, chunks int, m *lineMasks) {
	lineMasksAVX2(&data[p], &data[pp], chunks, m)
}
