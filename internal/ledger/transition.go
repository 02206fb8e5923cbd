package ledger

import (
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// The shard state machine of Ledger, as pure functions from the recorded
// shard (old) and the caller's (s) to the record to store. Every
// implementation reads the record, applies one of these, and writes the
// result atomically (a lock, a transaction), so that the transitions are
// written once.

// ClaimShard is Claim of old at now: an error wrapping
// derrors.ErrAlreadyDone for a done shard, derrors.ErrTransient for a
// running one whose lease has not expired; otherwise the shard running
// with a lease until now+lease, one more attempt, started now, its failure
// cleared (failed and dead-lettered shards are claimed again by a rerun).
// The returned shard is old on error.
func ClaimShard(old Shard, now time.Time, lease time.Duration) (Shard, error) {
	switch {
	case old.Status == Done:
		return old, derrors.ErrAlreadyDone
	case old.Status == Running && now.Before(old.Lease):
		return old, derrors.Transient(&LeaseHeldError{Until: old.Lease})
	}
	s := old
	s.Status = Running
	s.Attempts++
	s.Lease = now.Add(lease)
	s.Started = now
	s.ClearFailure()
	return s, nil
}

// LeaseHeldError is ClaimShard's error for a shard another worker holds:
// its lease ends at Until (by the holder's clock), when a waiting delivery
// may take the shard over.
type LeaseHeldError struct{ Until time.Time }

func (e *LeaseHeldError) Error() string {
	return "claimed by another worker until " + e.Until.Format(time.RFC3339Nano)
}

// CompleteShard is Complete of s over old at now: s done, its failure
// cleared, finished (finishShard). It returns false when old is done
// already: the first completion is kept and nothing is written.
func CompleteShard(s, old Shard, now time.Time) (Shard, bool) {
	if old.Status == Done {
		return old, false
	}
	s.Status = Done
	s.ClearFailure()
	return finishShard(s, old, now), true
}

// FailShard is Fail of s over old at now: s failed (or dead-lettered when
// s.Status says so) with its bad rows bounded, finished (finishShard). A
// done shard stays done: the error wraps derrors.ErrAlreadyDone.
func FailShard(s, old Shard, now time.Time) (Shard, error) {
	if old.Status == Done {
		return old, derrors.ErrAlreadyDone
	}
	if s.Status != DeadLettered {
		s.Status = Failed
	}
	s.BoundBadRows()
	return finishShard(s, old, now), nil
}

// finishShard keeps old's attempts, start time and last transient error,
// clears the lease, and stamps Finished now unless s has it.
func finishShard(s, old Shard, now time.Time) Shard {
	s.Attempts = old.Attempts
	s.Started = old.Started
	s.LastError = old.LastError
	s.Lease = time.Time{}
	if s.Finished.IsZero() {
		s.Finished = now
	}
	return s
}

// ReleaseShard is Release of the caller's claim s over old: when old is
// still running under that claim (same attempts), old back to pending with
// its lease and failure cleared and s.Error as LastError ("transient
// failure" when empty); otherwise false: nothing changes.
func ReleaseShard(s, old Shard) (Shard, bool) {
	if old.Status != Running || old.Attempts != s.Attempts {
		return old, false
	}
	old.Status = Pending
	old.Lease = time.Time{}
	old.ClearFailure()
	old.LastError = s.Error
	if old.LastError == "" {
		old.LastError = "transient failure"
	}
	return old, true
}
