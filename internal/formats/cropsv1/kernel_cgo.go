//go:build cgo

package cropsv1

/*
#cgo CFLAGS: -O2 -fno-builtin-log -fno-builtin-sin -fno-builtin-cos
#cgo LDFLAGS: -lm
#include "kernel.h"
*/
import "C"

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
)

// kernelOK: the C kernel is built in.
const kernelOK = true

// candChunk bounds one cr_cands call's candidates (about 10 µs).
const candChunk = 512

// cr_member must be member's layout.
var (
	_ = [1]int{}[unsafe.Sizeof(member{})-unsafe.Sizeof(C.cr_member{})]
	_ = [1]int{}[unsafe.Offsetof(member{}.n)-unsafe.Offsetof(C.cr_member{}.n)]
)

// screenAVX2 selects cr_screen_avx2 and cr_cells_block_avx2 (1) where
// the CPU has AVX2; tests turn it off to compare them with the scalar
// code.
var screenAVX2 C.int32_t = map[bool]C.int32_t{true: 1}[cpu.X86.HasAVX2]

// windowCap, when positive, shortens the windows the kernel gets, so
// that tests send many candidates to candidate.
var windowCap int

// kernelArgs is what cr_cands is handed by pointer, kept in the Generator
// (a Go value whose address C takes would escape: two allocations a crop).
type kernelArgs struct {
	cfg   C.cr_cfg
	state C.cr_state
}

// candidatesC is candidates with the C kernel (cr_cands) on windows of
// the Rand's outputs (pyrandom.Rand.Window): the kernel hands the stream
// back after each call (Rand.Advance, Normals.Restore), and a candidate
// it stops at is taken by candidate.
func (g *Generator) candidatesC(f *coordfront.Front, cb *cropBox, flat []int32, n0 int, included []member) []member {
	if len(flat) == 0 {
		return included
	}
	c, st := &g.kernel.cfg, &g.kernel.state
	*c = C.cr_cfg{s2: C.double(cb.s2), sigma: C.double(cb.sigma), keep: C.double(cb.keep), n: C.int64_t(len(flat)),
		n0: C.int64_t(n0), avx2: screenAVX2}
	for j := range 3 {
		c.lo[j], c.hi[j], c.flo[j], c.fhi[j] = C.double(cb.lo[j]), C.double(cb.hi[j]), C.double(cb.flo[j]), C.double(cb.fhi[j])
		c.bb[j] = C.int32_t(cb.bb[j])
	}
	if need := len(included) + len(flat); cap(included) < need {
		included = append(make([]member, 0, need), included...)
	}
	inc := included[:cap(included)]
	*st = C.cr_state{ninc: C.int64_t(len(included))}
	for st.k < c.n {
		win, d, cached := f.KernelWindow(windowCap)
		st.pos, st.need, st.cx, st.cu, st.cached = 0, 0, C.double(d.X), C.double(d.U), 0
		if cached {
			st.cached = 1
		}
		C.cr_cands(st, c, (*C.uint32_t)(&win[0]), C.int64_t(len(win)), (*C.int32_t)(&flat[0]),
			(*C.double)(&f.Placed[0][0]), (*C.cr_member)(unsafe.Pointer(&inc[0])), candChunk)
		f.KernelReturn(int(st.pos), float64(st.cx), float64(st.cu), st.cached != 0)
		if st.need != 0 {
			if m, ok := g.candidate(f, cb, flat[st.k]); ok {
				inc[st.ninc] = m
				st.ninc++
			}
			st.k++
		}
	}
	return inc[:st.ninc]
}

// cellsC is cells with the C kernel (cr_cells).
func cellsC(coords [][3]float64, trueCell, idx []int32) (lo, hi [3]int) {
	if len(coords) == 0 {
		return [3]int{grid, grid, grid}, [3]int{}
	}
	var lohi [6]C.int64_t
	C.cr_cells((*C.double)(&coords[0][0]), C.int64_t(len(coords)), (*C.int32_t)(&trueCell[0]), (*C.int32_t)(&idx[0]), &lohi[0], screenAVX2)
	for j := range 3 {
		lo[j], hi[j] = int(lohi[j]), int(lohi[3+j])
	}
	return lo, hi
}

// sortC is the counting sort of cellIndex.build with the C kernel (cr_sort).
func sortC(idx []int32, n12, n2, base int, start, order []int32) {
	if len(idx) == 0 {
		return
	}
	C.cr_sort((*C.int32_t)(&idx[0]), C.int64_t(len(idx)), C.int64_t(n12), C.int64_t(n2), C.int64_t(base),
		(*C.int32_t)(&start[0]), C.int64_t(len(start)-1), (*C.int32_t)(&order[0]))
}
