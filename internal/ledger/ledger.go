// Package ledger is the seam to the run ledger: one record per run and one per
// shard, so that reruns publish only what is missing and duplicate deliveries
// of a finished shard are no-ops. Locally it is a file beside the output;
// in the cloud it is Firestore (package internal/firestoreledger).
package ledger

import (
	"context"
	"strings"
	"time"
)

// Status of one shard.
type Status string

const (
	Pending      Status = "pending"
	Running      Status = "running"
	Done         Status = "done"
	Failed       Status = "failed"
	DeadLettered Status = "dead_lettered"
)

// Run describes one run.
type Run struct {
	ID       string            `json:"id"`
	Manifest string            `json:"manifest"`
	Format   string            `json:"format"`
	Output   string            `json:"output"` // output prefix
	Shards   int               `json:"shards"`
	Options  map[string]string `json:"options,omitempty"`
	Created  time.Time         `json:"created"`
}

// Counts is a shard's accounting: RowsIn = DocsOut + sum(Filtered) +
// Skipped; for a format that writes several documents per row (Entries
// set) RowsIn = Entries + sum(Filtered) + Skipped and DocsOut =
// sum(UnitDocs). Funnel holds such a format's named counts (chains
// dropped by reason, ...). See corpus.Accounting.
type Counts struct {
	RowsIn   int64            `json:"rows_in"`
	DocsOut  int64            `json:"docs_out"`
	Filtered map[string]int64 `json:"filtered,omitempty"`
	Skipped  int64            `json:"skipped"`
	Entries  int64            `json:"entries,omitempty"`
	UnitDocs map[string]int64 `json:"unit_docs,omitempty"`
	Funnel   map[string]int64 `json:"funnel,omitempty"`
	// SkippedParse counts the skipped rows (of Skipped) whose object
	// failed to parse (--lenient-parse); SuspectSeqLen the rows whose
	// structure has another length than the manifest's seq_len (written
	// as any other). Neither enters Balanced.
	SkippedParse  int64 `json:"skipped_parse,omitempty"`
	SuspectSeqLen int64 `json:"suspect_seq_len,omitempty"`
}

// Balanced reports whether every row is counted once (see Counts).
func (c Counts) Balanced() bool {
	sum := c.Skipped
	for _, n := range c.Filtered {
		sum += n
	}
	if c.Entries == 0 && c.UnitDocs == nil { // a format of one document per row
		return c.RowsIn == c.DocsOut+sum
	}
	var docs int64
	for _, n := range c.UnitDocs {
		docs += n
	}
	return c.RowsIn == c.Entries+sum && c.DocsOut == docs
}

// Add adds o's counts to c (c's maps are created as needed).
func (c *Counts) Add(o Counts) {
	c.RowsIn += o.RowsIn
	c.DocsOut += o.DocsOut
	c.Skipped += o.Skipped
	c.Entries += o.Entries
	c.SkippedParse += o.SkippedParse
	c.SuspectSeqLen += o.SuspectSeqLen
	for _, m := range []struct {
		dst *map[string]int64
		src map[string]int64
	}{{&c.Filtered, o.Filtered}, {&c.UnitDocs, o.UnitDocs}, {&c.Funnel, o.Funnel}} {
		for k, n := range m.src {
			if *m.dst == nil {
				*m.dst = map[string]int64{}
			}
			(*m.dst)[k] += n
		}
	}
}

// MaxBadRows bounds the bad rows a failed shard records (Shard.BadRows);
// the ones beyond it are only counted (Shard.BadRowsMore).
const MaxBadRows = 100

// MaxBadRowError bounds the length in bytes of one BadRow.Error.
const MaxBadRowError = 1000

// BadRow is one row that failed its shard: which entry, at which stage
// (manifest, fetch, parse, generate, write), why.
type BadRow struct {
	EntryID string `json:"entry_id"`
	Row     int64  `json:"row"` // row number within the manifest file
	Stage   string `json:"stage"`
	Error   string `json:"error"`
}

// BoundBadRows keeps the first MaxBadRows of s.BadRows, counting the rest
// in s.BadRowsMore, and cuts each error to MaxBadRowError bytes, so that a
// shard record stays small (a Firestore document holds at most 1 MiB).
func (s *Shard) BoundBadRows() {
	if n := len(s.BadRows); n > MaxBadRows {
		s.BadRowsMore += int64(n - MaxBadRows)
		s.BadRows = s.BadRows[:MaxBadRows:MaxBadRows]
	}
	for i := range s.BadRows {
		if e := s.BadRows[i].Error; len(e) > MaxBadRowError {
			s.BadRows[i].Error = strings.ToValidUTF8(e[:MaxBadRowError], "") + "..."
		}
	}
}

// ClearFailure empties the failure fields (Error, EntryID, BadRows,
// BadRowsMore): for a shard that is claimed, released or done.
func (s *Shard) ClearFailure() {
	s.Error, s.EntryID = "", ""
	s.BadRows, s.BadRowsMore = nil, 0
}

// Shard is the ledger record of one shard.
type Shard struct {
	RunID    string    `json:"run_id"`
	Index    int       `json:"index"`
	Status   Status    `json:"status"`
	Attempts int       `json:"attempts"`
	Lease    time.Time `json:"lease,omitempty"` // a running claim expires then
	Counts   Counts    `json:"counts"`
	Output   string    `json:"output,omitempty"`
	SHA256   string    `json:"sha256,omitempty"`   // of the output object
	EntryID  string    `json:"entry_id,omitempty"` // failing row, when failed
	Error    string    `json:"error,omitempty"`
	// BadRows are the rows that failed a failed shard, in input order: the
	// first MaxBadRows of them; BadRowsMore counts the rest.
	BadRows     []BadRow `json:"bad_rows,omitempty"`
	BadRowsMore int64    `json:"bad_rows_more,omitempty"`
	// LastError is the cause of the latest transient failure (set by
	// Release). It survives later claims and completion, so a shard that
	// is dead-lettered after repeated transient failures still shows why.
	LastError string    `json:"last_error,omitempty"`
	Started   time.Time `json:"started,omitempty"`
	Finished  time.Time `json:"finished,omitempty"`
}

// Ledger records runs and shards.
type Ledger interface {
	// CreateRun records the run and a pending record per shard. Idempotent:
	// a second call for the same run id leaves existing shard records as they
	// are (a redelivered trigger does not reset progress).
	CreateRun(ctx context.Context, run Run) error
	// GetRun returns the run, or an error wrapping derrors.ErrNotFound.
	GetRun(ctx context.Context, runID string) (Run, error)
	// Claim marks the shard running with a lease and bumps its attempts. It
	// returns an error wrapping derrors.ErrAlreadyDone if the shard is done,
	// and derrors.ErrTransient if another worker holds an unexpired lease.
	// Atomic under concurrent claims (exactly one wins).
	Claim(ctx context.Context, runID string, shard int, lease time.Duration) (Shard, error)
	// Complete marks the shard done with its counts and output. Idempotent.
	Complete(ctx context.Context, s Shard) error
	// Fail marks the shard failed (or dead-lettered) with the cause (Error,
	// EntryID, and every bad row: BadRows, bounded by BoundBadRows).
	// Only for permanent failures: the shard will not heal by itself.
	Fail(ctx context.Context, s Shard) error
	// Release gives up a claim after a transient failure (the message is
	// redelivered): the shard goes back to pending with its lease cleared,
	// keeping its attempts, and s.Error is recorded as LastError (Error and
	// EntryID stay empty: the shard has not failed). It acts only while the
	// shard is still running under the caller's claim (s.Attempts equal to
	// the recorded attempts); otherwise (done, failed, or claimed again by
	// another worker after the lease expired) it changes nothing and
	// returns nil. Safe to repeat.
	Release(ctx context.Context, s Shard) error
	// Shards returns every shard record of the run, ordered by index.
	Shards(ctx context.Context, runID string) ([]Shard, error)
}
