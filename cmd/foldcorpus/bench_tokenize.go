//go:build cgo

package main

import "github.com/foldcorpus/foldcorpus/internal/bench"

func init() {
	registerBench("tokenize", "bio2token-v2 encoder: CPU atoms/s, padding efficiency over AFDB lengths, TPU projection", bench.Tokenize)
}
