package planner

import (
	"errors"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// ErrNullID is wrapped by Prepare when a manifest row's entry_id is null or
// empty: the document would have no id (and no seed). Refused at planning,
// as duplicates are, whatever Spec.AllowDuplicateIDs says.
var ErrNullID = errors.New("null or empty entry_id")

// NullIDError is the error Prepare returns for null or empty entry ids: the
// first few rows (in manifest order) and how many there are.
type NullIDError struct {
	Rows  []NullID // at most maxDupsShown
	Count int
}

// NullID is one row whose entry_id is null or empty.
type NullID struct {
	IDPlace
	Null bool // null, else the empty string
}

func (e *NullIDError) add(p IDPlace, null bool) {
	e.Count++
	if len(e.Rows) < maxDupsShown {
		e.Rows = append(e.Rows, NullID{p, null})
	}
}

func (e *NullIDError) Error() string {
	msg := fmt.Sprintf("%d manifest rows have a null or empty entry_id (every row needs one: the document's id and seed):", e.Count)
	for _, r := range e.Rows {
		what := "empty"
		if r.Null {
			what = "null"
		}
		msg += fmt.Sprintf("\n  %s (%s)", r.IDPlace, what)
	}
	if more := e.Count - len(e.Rows); more > 0 {
		msg += fmt.Sprintf("\n  and %d more", more)
	}
	return msg + "\nremove those rows from the manifest or give them ids"
}

func (e *NullIDError) Unwrap() []error { return []error{ErrNullID, derrors.ErrPermanent} }
