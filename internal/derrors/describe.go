package derrors

import (
	"errors"
	"strings"
)

// Describe renders err for a person: its message without the names of the
// Go operations that wrapped it (Wrap) and without the classification
// prefixes (Permanent, Transient), so that what is left says what failed,
// for which file or row, and why. Logs keep err.Error(), which has both.
// Other wrapping (fmt.Errorf with %w) is kept as written.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	var op *opError
	var kind *kindError
	switch {
	case errors.As(err, &op) && op == err:
		return Describe(op.err)
	case errors.As(err, &kind) && kind == err:
		return Describe(kind.err)
	}
	msg := err.Error()
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		inner := u.Unwrap()
		if inner == nil {
			return msg
		}
		if im := inner.Error(); strings.HasSuffix(msg, im) {
			return msg[:len(msg)-len(im)] + Describe(inner)
		}
	case interface{ Unwrap() []error }:
		for _, inner := range u.Unwrap() {
			if inner == nil {
				continue
			}
			im := inner.Error()
			if inner == ErrPermanent || inner == ErrTransient {
				msg = strings.Replace(msg, im+": ", "", 1)
				continue
			}
			msg = strings.Replace(msg, im, Describe(inner), 1)
		}
	}
	return msg
}
