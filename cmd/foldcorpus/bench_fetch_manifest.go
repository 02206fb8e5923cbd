//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("fetch-manifest", "fetch-manifest against the local fake Hub with injected latency and a resolve quota: wall per file vs the floor; whole-file download side by side", bench.FetchManifest)
}
