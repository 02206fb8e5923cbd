// Package derrors holds the few sentinel errors that foldcorpus classifies
// failures by, and Wrap, which names the failing operation once.
//
// Code acts on an error's kind with errors.Is, never on its message.
package derrors

import (
	"errors"
	"fmt"
)

var (
	// ErrPermanent marks a failure that retrying cannot fix: a row that cannot
	// be fetched, parsed or generated, a bad manifest, an invalid message.
	ErrPermanent = errors.New("permanent failure")
	// ErrTransient marks a failure worth retrying: network, 429/5xx, deadline.
	ErrTransient = errors.New("transient failure")
	// ErrNotFound: the object, run or shard does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists: a create-only write found the object already there.
	ErrExists = errors.New("already exists")
	// ErrAlreadyDone: the shard was already completed; the caller has nothing to do.
	ErrAlreadyDone = errors.New("already done")
)

// Wrap adds context to *errp when it is non-nil, keeping the chain for
// errors.Is/As. Use it deferred: defer derrors.Wrap(&err, "Read(%s)", uri).
func Wrap(errp *error, format string, args ...any) {
	if *errp != nil {
		*errp = &opError{op: fmt.Sprintf(format, args...), err: *errp}
	}
}

// opError is an error with the name of the operation that returned it
// (Wrap): "op: err", for logs; Describe leaves the name out.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return e.op + ": " + e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// kindError classifies err (Permanent, Transient): "kind: err", for logs;
// Describe leaves the kind out.
type kindError struct {
	kind, err error
}

func (e *kindError) Error() string   { return e.kind.Error() + ": " + e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// Permanent wraps err so that errors.Is(err, ErrPermanent) holds.
func Permanent(err error) error {
	if err == nil || errors.Is(err, ErrPermanent) {
		return err
	}
	return &kindError{ErrPermanent, err}
}

// Transient wraps err so that errors.Is(err, ErrTransient) holds.
func Transient(err error) error {
	if err == nil || errors.Is(err, ErrTransient) {
		return err
	}
	return &kindError{ErrTransient, err}
}
