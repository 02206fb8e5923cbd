package bench

import (
	"slices"
	"testing"
	"time"
)

// TestDocsPerDocument checks the reference's statistic: each document's
// least CPU within a group of reps, the median over documents (filtered
// inputs, zero, left out), one figure per group.
func TestDocsPerDocument(t *testing.T) {
	ms := time.Millisecond
	reps := [][]time.Duration{
		{5 * ms, 0, 1 * ms, 9 * ms},
		{4 * ms, 0, 2 * ms, 7 * ms},
		{6 * ms, 0, 3 * ms, 8 * ms},
		{2 * ms, 0, 9 * ms, 9 * ms}, // a second, short group
	}
	// group 1: mins 4, 1, 7 (median 4); group 2: 2, 9, 9 (median 9)
	if got, want := docsPerDocument(reps, 3), []float64{4, 9}; !slices.Equal(got, want) {
		t.Errorf("docsPerDocument(group 3) = %v, want %v", got, want)
	}
	// one group of all: mins 2, 1, 7
	if got, want := docsPerDocument(reps, 4), []float64{2}; !slices.Equal(got, want) {
		t.Errorf("docsPerDocument(group 4) = %v, want %v", got, want)
	}
	if got := docsPerDocument(nil, 3); len(got) != 0 {
		t.Errorf("docsPerDocument(nil) = %v, want none", got)
	}
}
