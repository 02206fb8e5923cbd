//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("confind", "ConFind CPU per AFDB structure (placement, pruning, degrees) vs gemmi's read and pyconfind, library load CPU and RSS, a whole run", bench.Confind)
}
