//go:build cgo

package confind

/*
#cgo CFLAGS: -O3
#include "prune.h"
*/
import "C"

import "unsafe"

// pruneKernel selects prune's implementation (tests compare them): 0 the C
// function for this CPU, 1 the C function for any CPU, 2 pruneGo.
var pruneKernel = 0

// pruneChunk is the work of one C call of prune, in atom tests: about
// 10 us. A C call longer than the runtime monitor's tick (20 us) loses its
// P, and while that happens the monitor polls every 20 us, each poll a
// context switch (in a VM, tens of microseconds of the process's CPU).
const pruneChunk = 256

// prune is pruneGo in C, in calls of pruneChunk atom tests at most.
func prune(pl *placement, t *template, n int, i int32, ala bool, pr *pruner) {
	g := pr.g
	if pruneKernel == 2 || n == 0 || len(t.atoms) == 0 || len(g.items) == 0 {
		pruneGo(pl, t, n, i, ala, pr)
		return
	}
	m := len(t.atoms)
	_, _ = pl.at[3*m*n-1], pl.st[m*n-1]
	if cap(pl.hits) < 256 {
		pl.hits = make([]int32, 256)
	}
	all := C.int(0)
	if ala {
		all = 1
	}
	tested := 0
	for _, ok := range t.tested {
		if ok {
			tested++
		}
	}
	step := max(1, pruneChunk/max(1, tested))
	np := len(g.pts)
	avx2 := C.int(0)
	if havePairAVX2 && pruneKernel == 0 {
		avx2 = 1
	}
	for r0 := 0; r0 < n; {
		r1 := min(n, r0+step)
		h := pl.hits[:cap(pl.hits)]
		nh := C.cf_prune(avx2, (*C.double)(unsafe.Pointer(&pr.soa[0])), (*C.double)(unsafe.Pointer(&pr.soa[np+4])), (*C.double)(unsafe.Pointer(&pr.soa[2*(np+4)])), C.long(r0), C.long(r1), C.long(n), C.long(m), (*C.uchar)(unsafe.Pointer(&t.tested[0])), (*C.double)(unsafe.Pointer(&pl.at[0])),
			(*C.schar)(unsafe.Pointer(&pl.st[0])), all, C.int32_t(i), (*C.double)(unsafe.Pointer(&g.lo[0])), C.double(g.inv),
			C.long(g.nx), C.long(g.ny), C.long(g.nz), (*C.int32_t)(unsafe.Pointer(&g.start[0])), (*C.double)(unsafe.Pointer(&g.pts[0])),
			(*C.int32_t)(unsafe.Pointer(&pr.tag[0])), C.double(pr.clash), C.double(pr.c2),
			(*C.uchar)(unsafe.Pointer(&pl.alive[0])), (*C.int32_t)(unsafe.Pointer(&h[0])), C.long(len(h)))
		if nh < 0 {
			// more clashing positions than hits holds: these rows again
			// with room
			for k := range m {
				clear(pl.st[k*n+r0 : k*n+r1])
			}
			pl.hits = make([]int32, 4*len(h))
			continue
		}
		for _, q := range h[:nh] {
			pl.percont[i] = addSorted(pl.percont[i], q)
		}
		r0 = r1
	}
}
