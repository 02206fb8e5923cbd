//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("function", "the deployed function binary (the buildpack's main): size, cold start, RSS before the first request, what it links", bench.Function)
}
