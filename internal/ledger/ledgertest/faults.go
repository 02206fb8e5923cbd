package ledgertest

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// FailingComplete is a ledger whose next Fails Complete calls fail
// transiently ("commit: unavailable"), as a Firestore commit can, without
// reaching the ledger: the callers' handling of an output that is durable
// but not recorded.
type FailingComplete struct {
	ledger.Ledger
	Fails atomic.Int32
}

// ErrCommit is the failure FailingComplete returns.
var ErrCommit = errors.New("commit: unavailable")

func (l *FailingComplete) Complete(ctx context.Context, s ledger.Shard) error {
	if l.Fails.Add(-1) >= 0 {
		return derrors.Transient(ErrCommit)
	}
	return l.Ledger.Complete(ctx, s)
}
