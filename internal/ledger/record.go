package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// MaxError is the longest cause Record writes (a shard record stays small:
// a Firestore document holds at most 1 MiB).
const MaxError = 4000

// Record writes the failure err of the shard rec names, and returns the
// error its worker answers with. It is the one place a failure is
// recorded: the shard function's (with or without a claim), the
// accelerator job's, an undecodable message's and a dead letter's.
//
// rec says what failed beyond err (EntryID, BadRows, Counts; Status
// DeadLettered for a dead letter); Record sets rec.Error to
// derrors.Describe(err), cut to MaxError bytes.
//   - A transient err gives up the caller's claim (rec.Attempts, from
//     Claim): the shard goes back to pending with the cause as its last
//     error, never shown as failed, and the answer is transient (the
//     message is redelivered).
//   - Anything else fails the shard (or dead-letters it), and the answer is
//     permanent (acknowledged). A shard already done stays done, and a run
//     or shard the ledger does not know has nothing to record: neither is
//     an error.
//
// An error writing the ledger makes the answer transient (and only
// transient): the message is redelivered and the failure recorded then.
func Record(ctx context.Context, l Ledger, rec Shard, err error) error {
	rec.Error = derrors.Describe(err)
	if len(rec.Error) > MaxError {
		rec.Error = strings.ToValidUTF8(rec.Error[:MaxError], "") + "..."
	}
	if errors.Is(err, derrors.ErrTransient) {
		if rerr := l.Release(ctx, rec); rerr != nil {
			return errors.Join(err, derrors.Transient(rerr))
		}
		return err
	}
	ferr := l.Fail(ctx, rec)
	if ferr != nil && !errors.Is(ferr, derrors.ErrAlreadyDone) && !errors.Is(ferr, derrors.ErrNotFound) {
		// transient only: answered permanent, the failure would be
		// acknowledged unrecorded
		return derrors.Transient(fmt.Errorf("recording the failure (%s): %w", rec.Error, ferr))
	}
	return derrors.Permanent(err)
}
