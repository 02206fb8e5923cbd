//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("docs", "documents/s/core for read + generate over a folder of inputs, split by stage, vs the reference", bench.Docs)
}
