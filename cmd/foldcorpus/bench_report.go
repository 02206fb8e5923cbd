//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("report", "time the report of a synthetic many-shard run, projected vs reading every column", bench.Report)
}
