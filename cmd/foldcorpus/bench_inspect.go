//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("inspect", "CPU per file of `inspect --json` (a whole process) vs gemmi's read_structure alone on the same files", bench.Inspect)
}
