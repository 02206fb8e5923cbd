//go:build !cgo

package main

// foldcorpus is built with cgo: DuckDB's Go bindings (select, bench) and
// the glibc log/sin/cos that make documents bit-exact (internal/pyrandom)
// need it. Without cgo the commands that need DuckDB are left out (their
// files are tagged cgo), so that the build reaches this file and stops
// with a sentence a user can act on instead of a failure deep in DuckDB's
// bindings.
var _ int = "foldcorpus needs cgo and a C toolchain (gcc): build with CGO_ENABLED=1"
