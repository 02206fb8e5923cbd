// Package needcgo holds the one refusal of a build without cgo. The
// documents of several formats are byte-identical to their reference only
// with the C library's maths (glibc's log, sin, cos and atan2, which CPython
// and numba call; see pyrandom.ExactLibm and confind.ExactAtan2), and
// `select` needs DuckDB's cgo bindings. Without cgo those constructors and
// commands return ErrNoCgo, before anything is written, so every binary
// (the CLI, the function binary, tpujob) stops with the same sentence
// instead of writing other bytes.
package needcgo

import (
	"errors"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Sentence is ErrNoCgo's message, the one README.md gives.
const Sentence = "foldcorpus needs cgo and a C toolchain (gcc): build with CGO_ENABLED=1"

// ErrNoCgo is the error of a format or command that needs cgo, in a build
// without it.
var ErrNoCgo = errors.New(Sentence)

// Refuse is what refuses: "what: Sentence", wrapping ErrNoCgo and
// derrors.ErrPermanent (a retry cannot help; the binary must be rebuilt).
func Refuse(what string) error {
	return derrors.Permanent(fmt.Errorf("%s: %w", what, ErrNoCgo))
}
