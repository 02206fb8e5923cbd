//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("run", "CPU per document of `run` (file:// manifest, report included) and `doc`, whole processes, vs the inner loop and the reference", bench.Run)
}
