package mmcif

import "golang.org/x/sys/cpu"

// haveLineMasks reports whether the AVX2 routines (lineMasksAVX2,
// countPlainAVX2) run here.
var haveLineMasks = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

//go:noescape
func lineMasksAVX2(cur, prev *byte, pairs int, m *lineMasks)

// lineMasksAt fills m for the 64-byte blocks (words of m's fields) at
// data[p:] and data[pp:]; the caller checks that they are in data.
func lineMasksAt(data []byte, p, pp, words int, m *lineMasks) {
	lineMasksAVX2(&data[p], &data[pp], words, m)
}

//go:noescape
func countPlainAVX2(p *byte, blocks int) (tokens, done int, last uint32)

// countPlain counts the plain values in the whole 32-byte blocks from
// data[p] (see countPlainAVX2); a value must start at data[p].
func countPlain(data []byte, p int) (tokens, done int, last uint32) {
	if p+32 > len(data) {
		return 0, 0, 0
	}
	return countPlainAVX2(&data[p], (len(data)-p)/32)
}
