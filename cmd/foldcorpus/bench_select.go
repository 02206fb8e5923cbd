//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("select", "generate a synthetic manifest, time `select` (and a plain scan of its columns as baseline), project to 24M rows", bench.Select)
}
