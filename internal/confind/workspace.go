package confind

import "sync"

// workspace holds the per-structure scratch memory of Compute, reused
// across calls (a sync.Pool), so that a structure costs a few allocations
// instead of megabytes of garbage. Nothing in a Result aliases it.
type workspace struct {
	pl      placement
	sv      survivors
	obst    []vec
	obstPos []int32
	obstTag []int32
	grids   [2]grid
	cells   []cellRange
	// degrees
	touched []int32
	num     []float64 // the numerators of a position's pairs
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
