//go:build cgo

package confind

/*
#cgo CFLAGS: -O3
#include "pair.h"
*/
import "C"

import "unsafe"

var havePairAVX2 = C.cf_have_avx2_bmi() != 0

// pairKernel selects pair's implementation (tests compare them): 0 the C
// function for this CPU, 1 the C function for any CPU, 2 pairGo.
var pairKernel = 0

// pairsReady lays out the survivors' contact atoms by coordinate for the
// C kernel, and sizes its scratch.
func (ws *workspace) pairsReady() {
	if pairKernel == 2 {
		return
	}
	s := &ws.sv
	n := len(s.atoms)
	ws.soa = resize(ws.soa, 3*(n+4), false)
	x, y, z := ws.soa[:n+4], ws.soa[n+4:2*(n+4)], ws.soa[2*(n+4):]
	for a, v := range s.atoms {
		x[a], y[a], z[a] = v[0], v[1], v[2]
	}
	for a := n; a < n+4; a++ {
		x[a], y[a], z[a] = 0, 0, 0
	}
	most, maxAtoms := 0, 0
	for i := 0; i+1 < len(s.posRot); i++ {
		most = max(most, int(s.posRot[i+1]-s.posRot[i]))
	}
	for r := 0; r+1 < len(s.rat); r++ {
		maxAtoms = max(maxAtoms, int(s.rat[r+1]-s.rat[r]))
	}
	ws.cbox = resize(ws.cbox, 6*(most+4), false)
	ws.ci32 = resize(ws.ci32, 3*most+maxAtoms+1, false)
}

// pairs sets num[k] to the numerator of the degree of positions
// is[t] < js[k] for k in [off[t], off[t+1]), adding the collision masses to
// cp, in that order (pairsGo), in C: four near rotamers' box tests and one
// atom against four at once where the CPU has AVX2; one C call for all.
func pairs(ws *workspace, is, off, js []int32, cp []float64, c2 float64, num []float64) {
	s := &ws.sv
	if pairKernel == 2 || len(js) == 0 || len(s.w) == 0 {
		pairsGo(ws, is, off, js, cp, c2, num)
		return
	}
	n := len(s.atoms)
	most := (len(ws.cbox) / 6) - 4
	avx2 := C.int(0)
	if havePairAVX2 && pairKernel == 0 {
		avx2 = 1
	}
	// calls of about pairChunk near-rotamer tests (10 us): a C call longer
	// than the runtime monitor's tick (20 us) loses its P, and while that
	// happens the monitor polls every 20 us, each poll a context switch
	// (in a VM, tens of microseconds of the process's CPU); and a yield
	// now and then, so that the monitor never preempts the computation
	// (after 10 ms without one), which would also reset its polling.
	st := C.pair_state{t: 0, k: 0, ra: -1}
	for calls := 1; st.t < C.int32_t(len(is)); calls++ {
		C.cf_pairs(avx2, &st, C.long(pairChunk), (*C.int32_t)(unsafe.Pointer(&is[0])), (*C.int32_t)(unsafe.Pointer(&off[0])), C.int32_t(len(is)),
			(*C.int32_t)(unsafe.Pointer(&js[0])), (*C.int32_t)(unsafe.Pointer(&s.posRot[0])),
			(*C.double)(unsafe.Pointer(&s.rbox[0])), (*C.double)(unsafe.Pointer(&ws.rgrown[0])),
			(*C.double)(unsafe.Pointer(&ws.pgrown[0])),
			(*C.int32_t)(unsafe.Pointer(&s.rat[0])),
			(*C.double)(unsafe.Pointer(&ws.soa[0])), (*C.double)(unsafe.Pointer(&ws.soa[n+4])), (*C.double)(unsafe.Pointer(&ws.soa[2*(n+4)])),
			(*C.double)(unsafe.Pointer(&s.w[0])), (*C.double)(unsafe.Pointer(&cp[0])), C.double(c2),
			(*C.int32_t)(unsafe.Pointer(&ws.ci32[0])), (*C.int32_t)(unsafe.Pointer(&ws.ci32[most])),
			(*C.int32_t)(unsafe.Pointer(&ws.ci32[2*most])), (*C.int32_t)(unsafe.Pointer(&ws.ci32[3*most])),
			(*C.double)(unsafe.Pointer(&ws.cbox[0])), (*C.double)(unsafe.Pointer(&num[0])))
		if calls%8 == 0 {
			ws.yield()
		}
	}
}

// pairChunk is the work of one C call of pairs, in near-rotamer tests
// (four at a time in the AVX2 kernel).
const pairChunk = 192
