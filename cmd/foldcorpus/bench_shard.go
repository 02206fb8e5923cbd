//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("shard", "one synthetic shard with injected fetch latency: I/O overlap vs the floor, CPU and sequential; peak memory", bench.Shard)
}
