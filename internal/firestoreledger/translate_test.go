package firestoreledger

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// TestTranslateExpiredTransaction: a request in a transaction that expired
// or was closed under it (Firestore's and the emulator's INVALID_ARGUMENT)
// is transient, so the caller retries it; other INVALID_ARGUMENTs are not.
func TestTranslateExpiredTransaction(t *testing.T) {
	for _, c := range []struct {
		err       error
		transient bool
	}{
		{status.Error(codes.InvalidArgument, "The referenced transaction has expired or is no longer valid."), true},
		{status.Error(codes.InvalidArgument, "Transaction is invalid or closed."), true},
		{status.Error(codes.InvalidArgument, "Document name \"x\" lacks \"/\" at index 2."), false},
		{status.Error(codes.Aborted, "Transaction lock timeout."), true},
		{errors.New("transaction expired"), false},
	} {
		if got := errors.Is(translate(c.err), derrors.ErrTransient); got != c.transient {
			t.Errorf("translate(%v) transient = %v, want %v", c.err, got, c.transient)
		}
	}
}
