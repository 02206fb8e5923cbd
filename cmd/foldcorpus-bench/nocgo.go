//go:build !cgo

package main

// foldcorpus-bench is built with cgo, as the foldcorpus CLI is (DuckDB,
// the glibc maths of the document seeds): without it the build stops here
// with a sentence a user can act on.
var _ int = "foldcorpus-bench needs cgo and a C toolchain (gcc): build with CGO_ENABLED=1"
