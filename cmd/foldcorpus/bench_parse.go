//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("parse", "mmCIF read speed (MB/s) side by side with gemmi, memory, contacts cost", bench.Parse)
}
