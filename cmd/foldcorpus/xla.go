//go:build xla

package main

// Built with -tags xla (the accelerator job's image), the binary registers
// GoMLX's XLA/PJRT backend, so FOLDCORPUS_TOKENIZE_BACKEND=xla:tpu or xla:cuda
// runs the bio2token encoder on the accelerator through the PJRT plugin
// installed in the image. The default build has only the pure-Go CPU backend.
import _ "github.com/gomlx/gomlx/backends/xla"
