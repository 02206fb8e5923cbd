package ccoordv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// TestSampleDepth3: the written-out kernel for max_depth 3 picks what the
// general one picks, from the same draw, over the whole budget fraction.
func TestSampleDepth3(t *testing.T) {
	cfg := DefaultConfig()
	for seed := range uint64(20) {
		a, b := pyrandom.New(seed), pyrandom.New(seed)
		f := &coordfront.Front{Rand: a}
		for i := range 5000 {
			tt := float64(i) / 5000
			if g, w := sampleDepth3(b, tt, cfg.DepthKernelEpsilon), sampleDepth(f, tt, cfg); g != w {
				t.Fatalf("seed %d t=%v: sampleDepth3 = %d, sampleDepth = %d", seed, tt, g, w)
			}
		}
	}
}
