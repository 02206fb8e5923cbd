//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("cloud", "the cloud flow on the emulators with the deployed function binary: shards/s end to end, planner publish rate, lost and duplicated rows, peak memory (--shards N)", bench.Cloud)
}
