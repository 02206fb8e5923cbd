//go:build cgo

package cropsv1

/*
#include "pickkernel.h"
*/
import "C"

import (
	"math"
	"slices"
	"unsafe"
)

// cp_k must be pickK's layout.
var _ = [1]int{}[unsafe.Sizeof(pickK{})-unsafe.Sizeof(C.cp_k{})]

// pickChunk bounds one cr_pick call's draws (about 10 µs).
const pickChunk = 256

// Test knobs: pickWiden scales the margin (draws near a bound then take
// the slow path, between fast ones); pickAllSlow fails every check (every
// draw takes the slow path).
var (
	pickWiden   float64
	pickAllSlow bool
)

// drawAllC is drawAll with the C kernel (cr_pick). ok is false, with
// nothing done, where the kernel does not apply: a weight could fall below
// 2^-28 (the Go picker's fixed point; the tree does not need it, but the
// picker's later draws would), or the residues need more than 8 levels.
// The picker's Fenwick tree is left stale (rebuilt when a Go draw needs it).
func (p *picker) drawAllC(xs []float64, picks []int32) (_ []int32, ok bool) {
	m, L := len(p.res), len(p.w)
	if m == 0 || len(xs) == 0 {
		return picks, true
	}
	maxK := 0
	for _, k := range p.k {
		maxK = max(maxK, int(k))
	}
	depth, n := pickDepth(L)
	if !p.exactOK || maxK+len(xs)+1 >= 1<<28 || depth > 8 {
		return picks, false
	}
	p.kc = grow(p.kc, L)
	for r, k := range p.k {
		p.kc[r] = int32(k)
	}
	p.tab = pickTable(p.tab, maxK+len(xs)+1)
	p.lv = grow(p.lv, n)
	mbase, mslope := pickMargin(m, depth)
	st := C.cp_state{m: C.int64_t(m), nres: C.int64_t(L), depth: C.int64_t(depth),
		mbase: C.double(mbase), mslope: C.double(mslope)}
	if pickWiden > 0 {
		st.mbase, st.mslope = C.double(mbase*pickWiden), C.double(mslope*pickWiden)
	}
	if pickAllSlow {
		st.mbase = C.double(math.Inf(1))
	}
	C.cr_pick_init(&st, (*C.int32_t)(&p.start[0]), (*C.double)(&p.w[0]), (*C.double)(&p.lv[0]))
	st.wmax = st.wtf * (1 + 1e-9)
	n0 := len(picks)
	picks = slices.Grow(picks, len(xs))[:n0+len(xs)]
	out := picks[n0:]
	for j := 0; j < len(xs); j += pickChunk {
		C.cr_pick(&st, (*C.double)(&xs[0]), C.int64_t(j), C.int64_t(min(len(xs), j+pickChunk)), (*C.int32_t)(&out[0]),
			(*C.int32_t)(&p.res[0]), (*C.int32_t)(&p.start[0]), (*C.double)(&p.w[0]), (*C.double)(&p.k[0]),
			(*C.int32_t)(&p.kc[0]), (*C.cp_k)(unsafe.Pointer(&p.tab[0])), (*C.double)(&p.lv[0]), (*C.double)(&p.cdf[0]))
	}
	p.slow += int(st.slow)
	p.stale = true
	return picks, true
}
