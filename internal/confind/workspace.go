package confind

import (
	"runtime"
	"sync"
	"time"
)

// workspace holds the per-structure scratch memory of Compute, reused
// across calls (a sync.Pool), so that a structure costs a few allocations
// instead of megabytes of garbage. Nothing in a Result aliases it.
type workspace struct {
	pl      placement
	sv      survivors
	obst    []vec
	obstPos []int32
	obstTag []int32
	obstSoA []float64
	grids   [2]grid
	cells   []cellRange
	// degrees
	touched []int32
	pairOff []int32   // each position's first partner in touched
	num     []float64 // the numerators of the pairs
	near    []int32
	rgrown  []box
	pgrown  []box
	pbox    []box
	firsts  []first
	as      []vec
	ai      []int32
	jobs    []job
	jobEnd  []int
	cp      []float64
	// the C pair kernel's: contact atoms by coordinate (x, y, z, each padded
	// by 4) and scratch
	soa  []float64
	cbox []float64
	ci32 []int32
	// the last yield (yield)
	yielded time.Time
}

// yieldEvery bounds the computation's time between two yields.
const yieldEvery = 5 * time.Millisecond

// yield lets the scheduler run (runtime.Gosched) when the computation has
// not yielded for yieldEvery. The runtime's monitor preempts a goroutine
// that ran 10 ms without a reschedule, and if it is in a C call then,
// takes its P, which resets the monitor to polling every 20 us (each poll a
// context switch, in a VM tens of microseconds of the process's CPU): the
// C kernels' calls are short (about 10 us) so that the monitor never takes
// a P for a long call, and the computation yields so that it never needs
// to preempt.
func (ws *workspace) yield() {
	if now := time.Now(); now.Sub(ws.yielded) >= yieldEvery {
		runtime.Gosched()
		ws.yielded = now
	}
}

var workspaces = sync.Pool{New: func() any { return new(workspace) }}

// resize returns s with length n, reusing its memory; the contents are
// unspecified unless zero is true.
func resize[T any](s []T, n int, zero bool) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	if zero {
		clear(s)
	}
	return s
}
