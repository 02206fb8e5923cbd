//go:build !amd64

package mmcif

// haveLineMasks is false: the template path needs lineMasks, which only
// amd64 (AVX2) has; other platforms read every line byte by byte.
const haveLineMasks = false

func lineMasksAt(data []byte, p, pp, words int, m *lineMasks) {
	panic("mmcif: lineMasksAt without AVX2")
}

func countPlain(data []byte, p int) (tokens, done int, last uint32) {
	panic("mmcif: countPlain without AVX2")
}
