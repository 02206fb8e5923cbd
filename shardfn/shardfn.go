// Package shardfn is the second stage of a run: it processes one shard
// message end to end. It claims the shard in the ledger (a shard already done
// is a no-op), reads only the projected manifest columns of its shard,
// fetches each row's object with a bounded pool in input order (reading whole
// objects to EOF; the inline-text and record paths run sequentially), parses,
// counts designed-in filter outcomes by reason, generates documents, writes
// one parquet file create-only, and marks the shard done with its counts.
//
// Any row that cannot be fetched, parsed or generated fails the shard, unless
// the run opted into lenient mode for missing objects, where each missing
// object is skipped and counted. The shard goes on through its other rows
// to find every bad row (BadRowsError: each with its entry id, row number,
// stage and cause, recorded in the ledger up to ledger.MaxBadRows), but a
// failed shard never writes output. RowsIn = DocsOut + sum(Filtered) +
// Skipped for every shard that is done.
//
// The manifest is read at the generation the message pins
// (ShardMessage.ManifestGeneration), when it pins one.
//
// Retries are safe: a retry that finds the output already written verifies
// it has the same SHA-256 instead of writing it again. Process may run for
// different shards concurrently.
package shardfn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// DefaultFetchConcurrency bounds the per-row fetches in flight per shard.
const DefaultFetchConcurrency = 32

// DefaultLease is how long a claim lasts before another worker may take over.
const DefaultLease = 15 * time.Minute

// Deps are the shard worker's dependencies.
type Deps struct {
	Store  blob.Store
	Ledger ledger.Ledger
	// Parse reads an mmCIF file (plain or gzip) into st (mmcif.ReadInto),
	// overwriting st's earlier contents and reusing their memory. Rows
	// reuse structures: st holds an earlier row's result, which no one
	// uses any more. It is called from several goroutines at once, each
	// with its own st.
	Parse func(st *structure.Structure, data []byte) error
	// NewFormat resolves the format (required): the composition root's
	// registry (registry.Registry.Constructor over Store: an option naming
	// an input by URI, rotlib=gs://..., is read through Store, once per
	// process where the format shares it). shardfn links no format itself.
	NewFormat func(name string, opts map[string]string) (format.Format, error)
	// FetchConcurrency bounds fetches in flight (DefaultFetchConcurrency when 0).
	FetchConcurrency int
	// Lease is the claim duration (DefaultLease when 0).
	Lease time.Duration
	// Handoff, when set, sends the shards of a neural format
	// (format.Neural) to the accelerator job: the shard is adapted and
	// staged here and left pending for the job (see staged.go). Nil runs
	// every format inline.
	Handoff *Handoff
	// Validate checks the message before anything else happens, once per
	// Process call (queue.ShardMessage.Validate when nil; an error fails
	// the call permanently, and nothing is recorded). A caller whose queue
	// validated the message as it decoded it (the cloud function, whose
	// messages come from pubsubq.Decode) passes Prevalidated, so that each
	// message is validated once.
	Validate func(queue.ShardMessage) error
	// OnRow, when set, is called once per row as it is written (from one
	// goroutine at a time), with the row's outcome: "doc", "skipped" or the
	// filter reason, and its documents written (1 for "doc"; a Multi
	// format's row, outcome "entry", may write any number).
	OnRow func(outcome string, docs int)
}

// Timing sums per-row durations of a shard.
type Timing struct {
	Rows     int
	Fetch    time.Duration // object reads (URI mode)
	Parse    time.Duration
	Generate time.Duration
	Write    time.Duration // encoding rows, the footer and the object write
	Manifest time.Duration // reading the shard's manifest columns
	Wall     time.Duration // the whole Process call
}

// Result is what Process did.
type Result struct {
	// AlreadyDone is true when the ledger said the shard was done: nothing ran.
	AlreadyDone bool
	Shard       ledger.Shard
	Accounting  corpus.Accounting
	Timing      Timing
	// Bytes is the output file's size; Verified is true when the output
	// already existed (an earlier attempt wrote it) and matched.
	Bytes    int
	Verified bool
	// Staged is the URI of the staged inputs when the shard was handed to
	// the accelerator job (Deps.Handoff): the shard is pending until the
	// job writes the output and marks it done.
	Staged string
}

// RowError is the failure of one row: which entry, at which stage, why.
type RowError struct {
	EntryID string
	Row     int64 // row number within the manifest file
	Stage   string
	Err     error
}

func (e *RowError) Error() string {
	return fmt.Sprintf("entry %s (row %d): %s: %v", e.EntryID, e.Row, e.Stage, e.Err)
}
func (e *RowError) Unwrap() error { return e.Err }

// BadRowsError is the failure of a shard with one or more bad rows, in
// input order: the first ledger.MaxBadRows of them in Rows, the number of
// the others in More. Every row error is permanent.
type BadRowsError struct {
	Rows []*RowError
	More int64
}

func (e *BadRowsError) Error() string {
	if len(e.Rows) == 1 && e.More == 0 {
		return e.Rows[0].Error()
	}
	const show = 3
	var b strings.Builder
	fmt.Fprintf(&b, "%d bad rows: ", int64(len(e.Rows))+e.More)
	for i, r := range e.Rows[:min(show, len(e.Rows))] {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r.Error())
	}
	if rest := int64(len(e.Rows)-min(show, len(e.Rows))) + e.More; rest > 0 {
		fmt.Fprintf(&b, "; and %d more (every one in the ledger's bad rows, up to %d)", rest, ledger.MaxBadRows)
	}
	return b.String()
}

// Unwrap returns the row errors (errors.As finds the first).
func (e *BadRowsError) Unwrap() []error {
	out := make([]error, len(e.Rows))
	for i, r := range e.Rows {
		out[i] = r
	}
	return out
}

// BadRowsOf returns what the ledger records of a shard failure err: the
// first failing row's entry id, and every bad row (a *BadRowsError's, or
// the one *RowError) with the number beyond them. All are empty when err
// names no row.
func BadRowsOf(err error) (entryID string, rows []ledger.BadRow, more int64) {
	var re *RowError
	if !errors.As(err, &re) {
		return "", nil, 0
	}
	var bad *BadRowsError
	if !errors.As(err, &bad) {
		bad = &BadRowsError{Rows: []*RowError{re}}
	}
	for _, r := range bad.Rows {
		rows = append(rows, ledger.BadRow{EntryID: r.EntryID, Row: r.Row, Stage: r.Stage, Error: derrors.Describe(r.Err)})
	}
	return re.EntryID, rows, bad.More
}

// badRows collects a shard's bad rows (see BadRowsError).
type badRows struct {
	rows []*RowError
	more int64
}

// add records o's failure and reports true when it is a bad row: a
// permanent row failure while ctx is live. Anything else (a transient
// failure, a cancelled run) must stop the shard.
func (b *badRows) add(ctx context.Context, err error) bool {
	var re *RowError
	if ctx.Err() != nil || !errors.As(err, &re) || errors.Is(err, derrors.ErrTransient) || !errors.Is(err, derrors.ErrPermanent) {
		return false
	}
	if len(b.rows) < ledger.MaxBadRows {
		b.rows = append(b.rows, re)
	} else {
		b.more++
	}
	return true
}

func (b *badRows) failed() bool { return len(b.rows) > 0 }

// err is the shard's failure, or nil when no row was bad.
func (b *badRows) err() error {
	if !b.failed() {
		return nil
	}
	return &BadRowsError{Rows: b.rows, More: b.more}
}

// Prevalidated is a Deps.Validate for messages that the queue validated as
// it decoded them (pubsubq.Decode): it checks nothing.
func Prevalidated(queue.ShardMessage) error { return nil }

// Process runs one shard (see the package doc). It returns a nil error when
// the shard is done (now or before), or, for a neural format with
// Deps.Handoff set, staged and handed to the accelerator job (Result.Staged). A returned error wrapping
// derrors.ErrTransient is worth a redelivery: the shard has been released
// back to pending in the ledger (Ledger.Release, the cause kept as its last
// error), never recorded as failed. One wrapping derrors.ErrPermanent has
// been recorded as failed in the ledger and will not heal. A cancelled ctx
// leaves the claim to expire.
func Process(ctx context.Context, deps Deps, msg queue.ShardMessage) (res Result, err error) {
	defer derrors.Wrap(&err, "shardfn.Process(%s, shard %d)", msg.RunID, msg.Shard)
	start := time.Now()
	defer func() { res.Timing.Wall = time.Since(start) }()
	validate := deps.Validate
	if validate == nil {
		validate = queue.ShardMessage.Validate
	}
	if err := validate(msg); err != nil {
		return res, derrors.Permanent(err)
	}
	f, err := newFormat(deps, msg)
	if err != nil {
		// recorded without a claim: every delivery would fail the same way
		return res, settle(ctx, deps, ledger.Shard{RunID: msg.RunID, Index: msg.Shard}, corpus.Accounting{}, err)
	}
	lease := deps.Lease
	if lease == 0 {
		lease = DefaultLease
	}
	shard, err := deps.Ledger.Claim(ctx, msg.RunID, msg.Shard, lease)
	if errors.Is(err, derrors.ErrAlreadyDone) {
		return Result{AlreadyDone: true, Shard: shard}, nil
	}
	if err != nil {
		return res, err
	}
	res.Shard = shard
	if nf, ok := f.(format.Neural); ok && deps.Handoff != nil {
		return handOff(ctx, deps, msg, nf, shard, res)
	}
	acc, data, ledgerData, err := run(ctx, deps, msg, f, &res.Timing)
	var sum [sha256.Size]byte
	if err == nil {
		res.Accounting = acc
		res.Bytes = len(data)
		wstart := time.Now()
		if ledgerData != nil {
			// the ledger file first: the shard file is the commit point,
			// so a shard file never lacks its ledger
			_, _, err = write(ctx, deps.Store, corpus.LedgerURI(msg.Output), ledgerData, acc)
		}
		if err == nil {
			res.Verified, sum, err = write(ctx, deps.Store, msg.Output, data, acc)
		}
		res.Timing.Write += time.Since(wstart)
	}
	if err != nil {
		return res, settle(ctx, deps, shard, acc, err)
	}
	shard.Counts = counts(acc)
	shard.Output = msg.Output
	shard.SHA256 = hex.EncodeToString(sum[:])
	if err := deps.Ledger.Complete(ctx, shard); err != nil {
		// The output is durable but not recorded: without a release the
		// claim would turn every redelivery away until its lease ends. The
		// redelivery finds and verifies the output, so the failure is
		// transient whatever Complete answered (a Firestore transaction
		// that expired answers INVALID_ARGUMENT): a permanent error would
		// acknowledge the message and leave the shard pending, or running,
		// with no message left to finish it.
		return res, ledger.Record(ctx, deps.Ledger, shard, derrors.Transient(err))
	}
	res.Shard = shard
	return res, nil
}

// settle records a shard's failure err (ledger.Record) and returns the
// error Process returns. Interrupted (ctx done): nothing is recorded, the
// claim expires and a redelivery or rerun redoes the shard. Transient: the
// shard goes back to pending, for the redelivery to retry. Anything else
// fails the shard with the first failing row's entry id, every bad row
// (BadRowsError) and its counts so far, permanently.
func settle(ctx context.Context, deps Deps, shard ledger.Shard, acc corpus.Accounting, err error) error {
	if ctx.Err() != nil {
		return derrors.Transient(err)
	}
	shard.EntryID, shard.BadRows, shard.BadRowsMore = BadRowsOf(err)
	shard.Counts = counts(acc)
	return ledger.Record(ctx, deps.Ledger, shard, err)
}

// newFormat makes the message's format, and checks that deps can run it.
func newFormat(deps Deps, msg queue.ShardMessage) (format.Format, error) {
	if deps.NewFormat == nil {
		return nil, derrors.Permanent(errors.New("no format constructor (Deps.NewFormat: the composition root's registry.Registry.Constructor)"))
	}
	f, err := deps.NewFormat(msg.Format, msg.Options)
	if err != nil {
		return nil, derrors.Permanent(err)
	}
	if f.Kind() == format.FromStructure && !format.ReadsRaw(f) && deps.Parse == nil {
		return nil, derrors.Permanent(errors.New("no mmCIF parser configured (Deps.Parse)"))
	}
	return f, nil
}

func counts(a corpus.Accounting) ledger.Counts {
	return a.Counts()
}

// write creates the object, or verifies an existing one: the same bytes,
// or the same shard written by another foldcorpus build (an attempt that
// stopped before recording the shard done, then a redeploy: its accounting
// equal to acc but for the version), which is kept. It returns the sha256 of
// the stored object.
func write(ctx context.Context, store blob.Store, uri string, data []byte, acc corpus.Accounting) (verified bool, sum [sha256.Size]byte, err error) {
	sum = sha256.Sum256(data)
	err = store.Create(ctx, uri, data)
	if err == nil {
		return false, sum, nil
	}
	if !errors.Is(err, derrors.ErrExists) {
		return false, sum, err
	}
	old, rerr := store.ReadAll(ctx, uri)
	if rerr != nil {
		return false, sum, rerr
	}
	got := sha256.Sum256(old)
	if got == sum {
		return true, sum, nil
	}
	if m, merr := corpus.ReadMeta(ctx, store, uri); merr == nil && m.Accounting.Version != acc.Version {
		theirs := m.Accounting
		theirs.Version = acc.Version
		a, _ := json.Marshal(theirs)
		b, _ := json.Marshal(acc)
		if bytes.Equal(a, b) {
			return true, got, nil
		}
	}
	return false, sum, derrors.Permanent(fmt.Errorf("output %s exists with different content (sha256 %x, this attempt %x)", uri, got, sum))
}

// rowOut is one row's outcome before it is written.
type rowOut struct {
	entryID   string
	row       int64 // row number within the manifest file
	structure string
	skipped   bool
	// parseErr is why a row skipped by --lenient-parse failed to parse
	// ("" for a row skipped as missing); suspect says how a row's
	// structure disagrees with its manifest's seq_len ("": it does not).
	parseErr, suspect      string
	result                 format.Result
	pass                   []any // passthrough values
	err                    error
	fetch, parse, generate time.Duration
}

// run reads, processes and encodes the shard; it returns the file bytes
// and, for a Multi format, its ledger file's bytes.
func run(ctx context.Context, deps Deps, msg queue.ShardMessage, f format.Format, tm *Timing) (acc corpus.Accounting, data, ledger []byte, err error) {
	acc = newAccounting(msg, f)
	sr := &shardRun{deps: deps, msg: msg, f: f, acc: &acc, tm: tm}
	if err := sr.open(ctx); err != nil {
		return acc, nil, nil, err
	}
	defer sr.in.file.Close()
	sink, err := newCorpusSink(f, sr.in.pass, &acc, tm)
	if err != nil {
		return acc, nil, nil, err
	}
	defer sink.w.Close()
	if err := sr.rowLoop(ctx, sink, deps.OnRow); err != nil {
		return acc, nil, nil, err
	}
	if !acc.Balanced() {
		return acc, nil, nil, derrors.Permanent(fmt.Errorf("accounting does not balance: %+v", acc))
	}
	wstart := time.Now()
	defer func() { tm.Write += time.Since(wstart) }()
	if ledger, err = sink.ledgerFile(); err != nil {
		return acc, nil, nil, derrors.Permanent(fmt.Errorf("ledger file: %w", err))
	}
	data, err = sink.w.Finish(acc)
	return acc, data, ledger, err
}

func containsCol(cols []format.Column, name string) bool {
	for _, c := range cols {
		if c.Name == name {
			return true
		}
	}
	return false
}

// entryID renders the manifest's entry_id value.
func entryID(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
