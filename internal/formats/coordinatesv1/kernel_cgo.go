//go:build cgo

package coordinatesv1

/*
#cgo CFLAGS: -O2 -fno-builtin-log -fno-builtin-sin -fno-builtin-cos
#cgo LDFLAGS: -lm
#include "kernel.h"
*/
import "C"

import (
	"math/bits"
	"unsafe"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
)

// kernelOK: the C kernels are built in.
const kernelOK = true

// Kernel chunk sizes: each call stays near 10 µs.
const (
	drawChunk  = 256
	writeChunk = 512
)

// windowCap, when positive, shortens the windows cc_draw gets, so that
// tests send many events to drawEvent.
var windowCap int

// cc_event must be event's layout.
var (
	_ = [1]int{}[unsafe.Sizeof(event{})-unsafe.Sizeof(C.cc_event{})]
	_ = [1]int{}[unsafe.Offsetof(event{}.depth)-unsafe.Offsetof(C.cc_event{}.depth)]
)

// digitLanes[n] is n's hundreds, tens and ones digits in 16-bit lanes
// (cc_write's dig).
var digitLanes = func() *[1000]uint64 {
	var t [1000]uint64
	for n := range t {
		t[n] = uint64(n/100) | uint64(n/10%10)<<16 | uint64(n%10)<<32
	}
	return &t
}()

// kernelScratch is the C kernels' memory in a Generator.
type kernelScratch struct {
	pos16 []coordfront.Tok16 // residue -> its position token
}

// posTokens fills g's residue position tokens for f.
func (g *Generator) posTokens(f *coordfront.Front) []coordfront.Tok16 {
	t := grow(g.k.pos16, f.L)
	for r := range t {
		t[r] = *coordfront.Position16(f.Pos(r))
	}
	g.k.pos16 = t
	return t
}

// drawEventsC is drawEvents for max_depth 3 in C (cc_draw) on windows of
// the Rand's outputs (pyrandom.Rand.Window): the kernel hands the stream
// back after each call (Rand.Advance, Normals.Restore), and an event it
// stops before is taken by drawEvent.
func (g *Generator) drawEventsC(f *coordfront.Front, cfg Config, budget int) section {
	m := len(f.Placed)
	pos16 := g.posTokens(f)
	k3 := newKernel3(budget, cfg.DepthKernelEpsilon)
	c := C.cc_draw_cfg{m: C.int64_t(m), budget: C.int64_t(budget), shift: C.int32_t(32 - bits.Len32(uint32(m))),
		inv: C.double(k3.inv), eps: C.double(k3.eps), margin: C.double(k3.margin)}
	if cfg.ForceFullPrecisionFirstEvent {
		c.force_first = 1
	}
	// every event takes three tokens or more
	maxEv := budget/3 + 1
	if cap(g.events) < maxEv {
		g.events = make([]event, 0, maxEv)
	}
	if need := len(g.xs) + 2*maxEv + 2; cap(g.xs) < need {
		g.xs = append(make([]float64, 0, need), g.xs...)
		g.us = append(make([]float64, 0, need), g.us...)
	}
	ev, xs, us := g.events[:maxEv], g.xs[:cap(g.xs)], g.us[:cap(g.us)]
	st := C.cc_draw_state{np: C.int64_t(len(g.xs))}
	res, vocab, v16 := f.Atoms.Res, f.Atoms.Vocab, coordfront.Vocab16s()
	var sec section
	for st.done == 0 {
		win, d, cached := f.KernelWindow(windowCap)
		st.pos, st.need, st.cx, st.cu, st.cached = 0, 0, C.double(d.X), C.double(d.U), 0
		if cached {
			st.cached = 1
		}
		C.cc_draw(&st, &c, (*C.uint32_t)(&win[0]), C.int64_t(len(win)), (*C.int32_t)(&res[0]), (*C.uint8_t)(&vocab[0]),
			(*C.uint8_t)(&pos16[0][0]), (*C.uint8_t)(&v16[0][0]), (*C.cc_event)(unsafe.Pointer(&ev[0])),
			(*C.double)(&xs[0]), (*C.double)(&us[0]), drawChunk)
		f.KernelReturn(int(st.pos), float64(st.cx), float64(st.cu), st.cached != 0)
		if st.need != 0 {
			// drawEvent appends in place: ev, xs and us have the room
			g.events, g.xs, g.us = ev[:st.nev], xs[:st.np], us[:st.np]
			sec = section{used: int(st.used), hdrBytes: int(st.hdr)}
			if g.drawEvent(f, cfg, k3, budget, &sec) {
				st.done, st.truncated = 1, 1
			}
			st.nev, st.np, st.used, st.hdr = C.int64_t(len(g.events)), C.int64_t(len(g.xs)), C.int64_t(sec.used), C.int64_t(sec.hdrBytes)
		}
	}
	g.events, g.xs, g.us = ev[:st.nev], xs[:st.np], us[:st.np]
	return section{used: int(st.used), hdrBytes: int(st.hdr), truncated: st.truncated != 0}
}

// writeEventsC writes g's events for max_depth 3 in C (cc_write) and
// returns how many it wrote: all, unless one has a value Go must write.
func (g *Generator) writeEventsC(wr *writing, w *coordfront.Writer, d *Document) int {
	f, nev := wr.f, len(g.events)
	if nev == 0 {
		return 0
	}
	var c C.cc_write_cfg
	for k := range 3 {
		c.sig[k], c.tol[k] = C.double(wr.sigmas[k]), C.double(wr.tols[k])
	}
	c.z0, c.nev = C.int64_t(wr.z0), C.int64_t(nev)
	st := C.cc_write_state{out: C.int64_t(len(w.Buf))}
	pos16, v16, x16 := g.k.pos16, coordfront.Vocab16s(), coordfront.XYZ16s()
	res, vocab := f.Atoms.Res, f.Atoms.Vocab
	buf := w.Buf[:cap(w.Buf)]
	mentioned := unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(g.mentioned))), len(g.mentioned))
	for {
		k0 := st.k
		C.cc_write(&st, &c, (*C.cc_event)(unsafe.Pointer(&g.events[0])), (*C.double)(&g.zs[0]), (*C.double)(&g.xs[0]),
			(*C.double)(&g.us[0]), (*C.double)(&f.Placed[0][0]), (*C.int32_t)(&res[0]), (*C.uint8_t)(&vocab[0]),
			(*C.uint64_t)(&digitLanes[0]), (*C.uint8_t)(&pos16[0][0]), (*C.uint8_t)(&v16[0][0]), (*C.uint8_t)(&x16[0][0]), (*C.uint8_t)(&buf[0]),
			(*C.uint8_t)(&mentioned[0]), writeChunk)
		if st.k == C.int64_t(nev) || st.k-k0 < writeChunk {
			break
		}
	}
	w.Buf = w.Buf[:st.out]
	w.Tokens += int(st.tokens)
	for j := range 3 {
		d.DepthCounts[j] += int(st.counts[j])
	}
	d.NumDistinctAtomsMentioned += int(st.distinct)
	return int(st.k)
}
