//go:build cgo

package main

// The XLA backend of GoMLX ("xla:tpu", "xla:cuda", "xla:cpu"), for
// FOLDCORPUS_TOKENIZE_BACKEND. It needs cgo and, at run time, the PJRT
// plugin of the device (found through PJRT_PLUGIN_LIBRARY_PATH); without
// one, the job fails at start-up with an error naming the backend.
import _ "github.com/gomlx/gomlx/backends/xla"
