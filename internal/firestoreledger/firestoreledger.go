// Package firestoreledger implements ledger.Ledger on Cloud Firestore with
// the official client.
//
// Layout: one document per run in the collection Options.Collection
// (default "foldcorpus_runs"), its id the run id path-escaped; one document
// per shard in the run's subcollection "shards", id "%06d" of the index, with
// status, attempts, lease, counts, output object and hash, entry id and
// error. There is no shared counter document: progress is counted with
// aggregation (count) queries over the shard documents, so thousands of
// shard workers never contend on one document.
//
// Claim runs in a Firestore transaction (exactly one concurrent claimer
// wins; the losers see an unexpired lease and get derrors.ErrTransient).
// gRPC errors are translated: NotFound -> derrors.ErrNotFound, AlreadyExists
// -> derrors.ErrExists, Unavailable/Aborted/DeadlineExceeded/
// ResourceExhausted/Internal -> derrors.ErrTransient.
package firestoreledger

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foldcorpus/foldcorpus/internal/config"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// Options configure a Ledger. The zero value is valid.
type Options struct {
	// Collection is the top-level collection of run documents
	// (default "foldcorpus_runs").
	Collection string
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Ledger is the Firestore ledger. Safe for concurrent use; it does not own
// the client.
type Ledger struct {
	client *firestore.Client
	coll   string
	now    func() time.Time
}

var _ ledger.Ledger = (*Ledger)(nil)

// New returns a Ledger over client.
func New(client *firestore.Client, opts Options) *Ledger {
	l := &Ledger{client: client, coll: opts.Collection, now: opts.Now}
	if l.coll == "" {
		l.coll = config.DefaultLedgerCollection
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// runDoc and shardDoc are the stored documents.
type runDoc struct {
	ID       string            `firestore:"id"`
	Manifest string            `firestore:"manifest"`
	Format   string            `firestore:"format"`
	Output   string            `firestore:"output"`
	Shards   int               `firestore:"shards"`
	Options  map[string]string `firestore:"options,omitempty"`
	Created  time.Time         `firestore:"created"`
}

type shardDoc struct {
	RunID    string           `firestore:"run_id"`
	Index    int              `firestore:"index"`
	Status   string           `firestore:"status"`
	Attempts int              `firestore:"attempts"`
	Lease    time.Time        `firestore:"lease"`
	RowsIn   int64            `firestore:"rows_in"`
	DocsOut  int64            `firestore:"docs_out"`
	Filtered map[string]int64 `firestore:"filtered"`
	Skipped  int64            `firestore:"skipped"`
	Entries  int64            `firestore:"entries,omitempty"`
	UnitDocs map[string]int64 `firestore:"unit_docs,omitempty"`
	Funnel   map[string]int64 `firestore:"funnel,omitempty"`
	Output   string           `firestore:"output"`
	SHA256   string           `firestore:"sha256"`
	EntryID  string           `firestore:"entry_id"`
	Error    string           `firestore:"error"`
	BadRows  []badRowDoc      `firestore:"bad_rows,omitempty"`
	BadMore  int64            `firestore:"bad_rows_more,omitempty"`
	LastErr  string           `firestore:"last_error"`
	Started  time.Time        `firestore:"started"`
	Finished time.Time        `firestore:"finished"`
	Updated  time.Time        `firestore:"updated"`
	// Claim identifies the Claim call that holds a running shard (see
	// Claim); any other write clears it.
	Claim string `firestore:"claim,omitempty"`
	// SkippedParse and SuspectSeqLen are ledger.Counts' fields of those
	// names (beside RowsIn, ..., Funnel above).
	SkippedParse  int64 `firestore:"skipped_parse,omitempty"`
	SuspectSeqLen int64 `firestore:"suspect_seq_len,omitempty"`
}

type badRowDoc struct {
	EntryID string `firestore:"entry_id"`
	Row     int64  `firestore:"row"`
	Stage   string `firestore:"stage"`
	Error   string `firestore:"error"`
}

func toShard(d shardDoc) ledger.Shard {
	var bad []ledger.BadRow
	for _, b := range d.BadRows {
		bad = append(bad, ledger.BadRow(b))
	}
	return ledger.Shard{
		BadRows: bad, BadRowsMore: d.BadMore,
		RunID: d.RunID, Index: d.Index, Status: ledger.Status(d.Status), Attempts: d.Attempts, Lease: d.Lease,
		Counts: ledger.Counts{RowsIn: d.RowsIn, DocsOut: d.DocsOut, Filtered: d.Filtered, Skipped: d.Skipped,
			Entries: d.Entries, UnitDocs: d.UnitDocs, Funnel: d.Funnel,
			SkippedParse: d.SkippedParse, SuspectSeqLen: d.SuspectSeqLen},
		Output: d.Output, SHA256: d.SHA256, EntryID: d.EntryID, Error: d.Error, LastError: d.LastErr,
		Started: d.Started, Finished: d.Finished,
	}
}

func fromShard(s ledger.Shard, now time.Time) shardDoc {
	var bad []badRowDoc
	for _, b := range s.BadRows {
		bad = append(bad, badRowDoc(b))
	}
	return shardDoc{
		BadRows: bad, BadMore: s.BadRowsMore,
		RunID: s.RunID, Index: s.Index, Status: string(s.Status), Attempts: s.Attempts, Lease: s.Lease,
		RowsIn: s.Counts.RowsIn, DocsOut: s.Counts.DocsOut, Filtered: s.Counts.Filtered, Skipped: s.Counts.Skipped,
		Entries: s.Counts.Entries, UnitDocs: s.Counts.UnitDocs, Funnel: s.Counts.Funnel,
		SkippedParse: s.Counts.SkippedParse, SuspectSeqLen: s.Counts.SuspectSeqLen,
		Output: s.Output, SHA256: s.SHA256, EntryID: s.EntryID, Error: s.Error, LastErr: s.LastError,
		Started: s.Started, Finished: s.Finished, Updated: now,
	}
}

// DocID is the document id of a run: the run id path-escaped, so that run
// ids holding "/" (gs:// names) are single document ids.
func DocID(runID string) string { return url.PathEscape(runID) }

func (l *Ledger) runRef(runID string) *firestore.DocumentRef {
	return l.client.Collection(l.coll).Doc(DocID(runID))
}

func (l *Ledger) shardRef(runID string, i int) *firestore.DocumentRef {
	return l.runRef(runID).Collection("shards").Doc(fmt.Sprintf("%06d", i))
}

// CreateRun records the run and a pending document for every shard that has
// none (create-if-absent, written with a BulkWriter). Idempotent: a second
// call, or a call after a crash half-way, only adds what is missing; a
// different run already stored under the same id is left as it is.
func (l *Ledger) CreateRun(ctx context.Context, run ledger.Run) (err error) {
	defer derrors.Wrap(&err, "firestoreledger.CreateRun(%s)", run.ID)
	if run.ID == "" || run.Shards < 0 {
		return derrors.Permanent(fmt.Errorf("invalid run: id %q, %d shards", run.ID, run.Shards))
	}
	if run.Created.IsZero() {
		run.Created = l.now().UTC()
	}
	_, err = l.runRef(run.ID).Create(ctx, runDoc{
		ID: run.ID, Manifest: run.Manifest, Format: run.Format, Output: run.Output,
		Shards: run.Shards, Options: run.Options, Created: run.Created,
	})
	if err != nil && status.Code(err) != codes.AlreadyExists {
		return translate(err)
	}
	bw := l.client.BulkWriter(ctx)
	jobs := make([]*firestore.BulkWriterJob, run.Shards)
	now := l.now().UTC()
	for i := range run.Shards {
		s := ledger.Shard{RunID: run.ID, Index: i, Status: ledger.Pending}
		if jobs[i], err = bw.Create(l.shardRef(run.ID, i), fromShard(s, now)); err != nil {
			bw.End()
			return translate(err)
		}
	}
	bw.End()
	for i, j := range jobs {
		if _, err := j.Results(); err != nil && status.Code(err) != codes.AlreadyExists {
			return fmt.Errorf("shard %d: %w", i, translate(err))
		}
	}
	return nil
}

// GetRun returns the run, or an error wrapping derrors.ErrNotFound.
func (l *Ledger) GetRun(ctx context.Context, runID string) (_ ledger.Run, err error) {
	defer derrors.Wrap(&err, "firestoreledger.GetRun(%s)", runID)
	snap, err := l.runRef(runID).Get(ctx)
	if err != nil {
		return ledger.Run{}, translate(err)
	}
	var d runDoc
	if err := snap.DataTo(&d); err != nil {
		return ledger.Run{}, derrors.Permanent(err)
	}
	return ledger.Run{ID: d.ID, Manifest: d.Manifest, Format: d.Format, Output: d.Output, Shards: d.Shards, Options: d.Options, Created: d.Created}, nil
}

// Claim marks the shard running with a lease and bumps its attempts, in a
// transaction (exactly one of concurrent claimers wins). A done shard gives
// derrors.ErrAlreadyDone; a running shard with an unexpired lease gives
// derrors.ErrTransient (the message is redelivered later). Failed and
// dead-lettered shards can be claimed again (a rerun).
//
// A commit can apply though its answer is lost (a deadline, a dropped
// connection): the claim would then be held by no one, and turn every
// redelivery away until its lease ends. So each call writes its own token
// with the claim, and after any other failure reads the shard back: the
// claim is the caller's when the token is there.
func (l *Ledger) Claim(ctx context.Context, runID string, shard int, lease time.Duration) (_ ledger.Shard, err error) {
	defer derrors.Wrap(&err, "firestoreledger.Claim(%s, %d)", runID, shard)
	ref := l.shardRef(runID, shard)
	token := rand.Text()
	var out ledger.Shard
	err = l.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		d, err := getShard(tx, ref)
		if err != nil {
			return err
		}
		if d.Claim == token { // an earlier try of this transaction committed
			out = toShard(d)
			return nil
		}
		now := l.now().UTC()
		if out, err = ledger.ClaimShard(toShard(d), now, lease); err != nil {
			return err
		}
		doc := fromShard(out, now)
		doc.Claim = token
		return tx.Set(ref, doc)
	})
	if err == nil || errors.Is(err, derrors.ErrAlreadyDone) {
		return out, translate(err)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if snap, rerr := ref.Get(rctx); rerr == nil {
		var d shardDoc
		if snap.DataTo(&d) == nil && d.Claim == token && d.Status == string(ledger.Running) {
			return toShard(d), nil
		}
	}
	return out, translate(err)
}

func getShard(tx *firestore.Transaction, ref *firestore.DocumentRef) (shardDoc, error) {
	var d shardDoc
	snap, err := tx.Get(ref)
	if err != nil {
		return d, err
	}
	if err := snap.DataTo(&d); err != nil {
		return d, derrors.Permanent(err)
	}
	return d, nil
}

// Complete marks the shard done with its counts, output and hash.
// Idempotent: a shard already done keeps its first completion.
func (l *Ledger) Complete(ctx context.Context, s ledger.Shard) (err error) {
	defer derrors.Wrap(&err, "firestoreledger.Complete(%s, %d)", s.RunID, s.Index)
	return l.update(ctx, s.RunID, s.Index, func(old ledger.Shard, now time.Time) (ledger.Shard, bool, error) {
		next, write := ledger.CompleteShard(s, old, now)
		return next, write, nil
	})
}

// Fail records the shard as failed, or dead-lettered when s.Status says so,
// with s.EntryID, s.Error and s.BadRows (bounded). A done shard stays done and Fail returns an
// error wrapping derrors.ErrAlreadyDone. Repeating Fail rewrites the cause.
func (l *Ledger) Fail(ctx context.Context, s ledger.Shard) (err error) {
	defer derrors.Wrap(&err, "firestoreledger.Fail(%s, %d)", s.RunID, s.Index)
	return l.update(ctx, s.RunID, s.Index, func(old ledger.Shard, now time.Time) (ledger.Shard, bool, error) {
		next, err := ledger.FailShard(s, old, now)
		return next, err == nil, err
	})
}

// update applies a transition of package ledger to the shard's record in a
// transaction: it reads the record, calls next with it and the clock, and
// writes what next returns when it says so. next's error is returned (and
// nothing is written); Firestore errors are translated. The transaction
// may run next more than once under contention.
func (l *Ledger) update(ctx context.Context, runID string, index int, next func(old ledger.Shard, now time.Time) (ledger.Shard, bool, error)) error {
	ref := l.shardRef(runID, index)
	return translate(l.client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		old, err := getShard(tx, ref)
		if err != nil {
			return err
		}
		now := l.now().UTC()
		s, write, err := next(toShard(old), now)
		if err != nil || !write {
			return err
		}
		return tx.Set(ref, fromShard(s, now))
	}))
}

// Release puts a running shard back to pending after a transient failure,
// in a transaction (see ledger.Ledger): lease cleared, attempts kept,
// s.Error recorded as last_error. A shard not running under the caller's
// claim (same attempts) is left as it is and Release returns nil.
func (l *Ledger) Release(ctx context.Context, s ledger.Shard) (err error) {
	defer derrors.Wrap(&err, "firestoreledger.Release(%s, %d)", s.RunID, s.Index)
	return l.update(ctx, s.RunID, s.Index, func(old ledger.Shard, _ time.Time) (ledger.Shard, bool, error) {
		next, write := ledger.ReleaseShard(s, old)
		return next, write, nil
	})
}

// Shards returns every shard record of the run, ordered by index.
func (l *Ledger) Shards(ctx context.Context, runID string) (_ []ledger.Shard, err error) {
	defer derrors.Wrap(&err, "firestoreledger.Shards(%s)", runID)
	snaps, err := l.runRef(runID).Collection("shards").OrderBy("index", firestore.Asc).Documents(ctx).GetAll()
	if err != nil {
		return nil, translate(err)
	}
	out := make([]ledger.Shard, 0, len(snaps))
	for _, snap := range snaps {
		var d shardDoc
		if err := snap.DataTo(&d); err != nil {
			return nil, derrors.Permanent(fmt.Errorf("%s: %w", snap.Ref.Path, err))
		}
		out = append(out, toShard(d))
	}
	return out, nil
}

// Progress counts the run's shards by status with one aggregation (count)
// query per status; no document is read and no counter document exists.
func (l *Ledger) Progress(ctx context.Context, runID string) (_ map[ledger.Status]int64, err error) {
	defer derrors.Wrap(&err, "firestoreledger.Progress(%s)", runID)
	out := map[ledger.Status]int64{}
	shards := l.runRef(runID).Collection("shards")
	for _, st := range []ledger.Status{ledger.Pending, ledger.Running, ledger.Done, ledger.Failed, ledger.DeadLettered} {
		q := shards.Where("status", "==", string(st))
		res, err := q.NewAggregationQuery().WithCount("n").Get(ctx)
		if err != nil {
			return nil, translate(err)
		}
		n, err := countValue(res["n"])
		if err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, nil
}

func countValue(v any) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case interface{ GetIntegerValue() int64 }:
		return x.GetIntegerValue(), nil
	}
	return 0, fmt.Errorf("unexpected count value %T", v)
}

// translate classifies Firestore (gRPC) errors with derrors sentinels,
// keeping errors that already carry one.
func translate(err error) error {
	if err == nil {
		return nil
	}
	for _, s := range []error{derrors.ErrAlreadyDone, derrors.ErrTransient, derrors.ErrPermanent, derrors.ErrNotFound, derrors.ErrExists} {
		if errors.Is(err, s) {
			return err
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return derrors.Transient(err)
	}
	switch status.Code(err) {
	case codes.NotFound:
		return fmt.Errorf("%w: %w", derrors.ErrNotFound, err)
	case codes.AlreadyExists:
		return fmt.Errorf("%w: %w", derrors.ErrExists, err)
	case codes.Unavailable, codes.Aborted, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Internal:
		return derrors.Transient(err)
	case codes.InvalidArgument:
		if expiredTransaction(err) {
			return derrors.Transient(err)
		}
	}
	return err
}

// expiredTransaction reports whether err is Firestore's answer to a request
// in a transaction that has expired or been closed under it ("The
// referenced transaction has expired or is no longer valid"; the emulator:
// "Transaction is invalid or closed", after a lock timeout): INVALID_ARGUMENT,
// which the client does not retry, though the transaction run again from
// the start can succeed.
func expiredTransaction(err error) bool {
	msg := strings.ToLower(status.Convert(err).Message())
	return strings.Contains(msg, "transaction") && (strings.Contains(msg, "expired") || strings.Contains(msg, "invalid or closed") || strings.Contains(msg, "no longer valid"))
}
