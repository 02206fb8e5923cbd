package shardfn

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/version"
)

// A shard is one pass: openShard opens the manifest once (one footer read,
// its schema and its rows from the same open object), then rowLoop reads
// the projected columns, fetches, parses and generates each row, and hands
// every row that gets a document to a rowSink in input order: the corpus
// writer (run), or the staged inputs of a neural format (handOff).

// rowSink takes the rows of a shard that get a document, in input order,
// from one goroutine.
type rowSink interface {
	// expectRows is a hint: the shard's rows, taken before the first row.
	expectRows(total int64)
	// add takes r. failed is true once the shard has a bad row: it writes
	// nothing then, and only counts. An error fails the shard.
	add(r rowOut, failed bool) error
}

// shardInput is a shard's manifest, open, and what the message and its
// schema say of it.
type shardInput struct {
	file *manifest.File
	// pass are the passthrough columns (the projected ones that are not
	// inputs), passIdx their positions in msg.Columns.
	pass    []format.Column
	passIdx []int
	// cols are the columns read: msg.Columns, and SeqLenColumn after them
	// when the manifest has it and the projection does not (a format that
	// writes its own seq_len), for the rows' length check (seqLenCheck).
	cols []string
}

// newAccounting starts a shard's accounting.
func newAccounting(msg queue.ShardMessage, f format.Format) corpus.Accounting {
	acc := corpus.Accounting{
		RunID: msg.RunID, Shard: msg.Shard, Total: msg.Total, Manifest: msg.Manifest,
		RowGroups: msg.RowGroups, Format: f.Name(), Options: msg.Options,
		Lenient: msg.LenientMissing, LenientParse: msg.LenientParse, Filtered: map[string]int64{},
		Version: version.String(),
	}
	if format.IsMulti(f) {
		acc.Multi = true
		acc.UnitDocs, acc.Funnel = map[string]int64{}, map[string]int64{}
	}
	return acc
}

// shardRun is one shard's pass: what every stage reads (the dependencies,
// the message, the format) and what they count (the accounting and the
// timing), in one value instead of positional parameters. in is set by
// open; its file is the caller's to close.
type shardRun struct {
	deps Deps
	msg  queue.ShardMessage
	f    format.Format
	in   *shardInput
	acc  *corpus.Accounting
	tm   *Timing
}

// open opens the shard's manifest once, at the generation the message
// pins when it pins one (an overwritten manifest fails the shard
// permanently instead of feeding it another file's rows), sets
// acc.DroppedColumns and resolves the passthrough columns (s.in). The
// caller closes s.in.file.
func (s *shardRun) open(ctx context.Context) error {
	in, err := openShard(ctx, s.deps, s.msg, s.f, s.acc, s.tm)
	s.in = in
	return err
}

func openShard(ctx context.Context, deps Deps, msg queue.ShardMessage, f format.Format, acc *corpus.Accounting, tm *Timing) (*shardInput, error) {
	mstart := time.Now()
	mstore := blob.Pin(deps.Store, msg.Manifest, msg.ManifestGeneration)
	file, err := manifest.Open(ctx, mstore, msg.Manifest)
	tm.Manifest += time.Since(mstart)
	if err != nil {
		return nil, err
	}
	schema := file.Schema()
	acc.DroppedColumns = manifest.Dropped(schema, msg.Columns)
	inputs := map[string]bool{manifest.EntryIDColumn: true, msg.URIColumn: true, msg.TextColumn: true}
	for _, c := range f.RecordColumns() {
		inputs[c.Name] = true
	}
	in := &shardInput{file: file, cols: msg.Columns}
	if c, ok := schema.Column(SeqLenColumn); ok && c.Type == format.Int64 && f.Kind() == format.FromStructure && !slices.Contains(msg.Columns, SeqLenColumn) {
		in.cols = append(slices.Clip(msg.Columns), SeqLenColumn)
	}
	for i, name := range msg.Columns {
		if inputs[name] {
			continue
		}
		c, ok := schema.Column(name)
		if !ok {
			file.Close()
			return nil, derrors.Permanent(fmt.Errorf("manifest %s: %w %q", msg.Manifest, manifest.ErrMissingColumn, name))
		}
		in.pass = append(in.pass, c)
		in.passIdx = append(in.passIdx, i)
	}
	return in, nil
}

// rowLoop runs the shard's rows through f and hands them to sink: in URI
// mode it reads the projected columns of every row, then overlaps the
// fetches (fetchPool); in inline mode it processes rows one at a time as
// their row groups are read. It counts every row in acc and tm (a skipped
// or filtered row is settled here; the sink counts the documents) and
// calls onRow, when set, with each row's outcome. A bad row is recorded
// and the loop goes on (the shard fails with every bad row, BadRowsError);
// any other failure stops it. A row skipped because its object failed to
// parse (--lenient-parse) is counted as skipped and named with its error
// (acc.ParseErrors); a row whose structure disagrees with its seq_len
// (seqLenCheck) is counted and named as suspect, whatever its outcome.
func (s *shardRun) rowLoop(ctx context.Context, sink rowSink, onRow func(string, int)) error {
	msg, in, acc, tm := s.msg, s.in, s.acc, s.tm
	var bad badRows
	consume := func(r rowOut) error {
		tm.Fetch += r.fetch
		tm.Parse += r.parse
		tm.Generate += r.generate
		acc.RowsIn++
		if r.suspect != "" {
			acc.SuspectSeqLen++
			if len(acc.Suspects) < corpus.MaxSuspects {
				acc.Suspects = append(acc.Suspects, corpus.RowIssue{EntryID: r.entryID, Row: r.row, Detail: r.suspect})
			}
		}
		outcome, docs := "doc", 1
		switch {
		case r.skipped:
			acc.Skipped++
			acc.SkippedIDs = append(acc.SkippedIDs, r.entryID)
			if r.parseErr != "" {
				acc.SkippedParse++
				acc.ParseErrors = append(acc.ParseErrors, corpus.RowIssue{EntryID: r.entryID, Row: r.row, Detail: r.parseErr})
			}
			outcome, docs = "skipped", 0
		case r.result.Filtered != "":
			acc.Filtered[r.result.Filtered]++
			outcome, docs = r.result.Filtered, 0
		case acc.Multi:
			// an entry: its documents (the sink counts them by kind), its
			// funnel counts and its ledger row
			acc.Entries++
			outcome, docs = "entry", len(r.result.Units)
			for k, n := range r.result.Funnel {
				acc.Funnel[k] += n
			}
			if err := sink.add(r, bad.failed()); err != nil {
				return err
			}
		default:
			if err := sink.add(r, bad.failed()); err != nil {
				return err
			}
		}
		tm.Rows++
		if onRow != nil {
			onRow(outcome, docs)
		}
		return nil
	}
	mstart := time.Now()
	var err error
	if msg.URIColumn != "" {
		// URI mode: the projected columns are small; read them all, then
		// overlap the fetches.
		var rows []*manifest.Rows
		err = in.file.ReadShard(ctx, msg.RowGroups, in.cols, func(r *manifest.Rows) error {
			rows = append(rows, r)
			return nil
		})
		tm.Manifest += time.Since(mstart)
		if err != nil {
			return err
		}
		if len(rows) > 0 {
			sink.expectRows(rows[0].Total)
		}
		err = s.fetchPool(ctx, rows, &bad, consume)
	} else {
		lim := rowLimits{mems: make(rowMems, 1)} // rows one at a time
		err = in.file.ReadShard(ctx, msg.RowGroups, in.cols, func(r *manifest.Rows) error {
			tm.Manifest += time.Since(mstart)
			sink.expectRows(r.Total) // taken before the first row only
			for i := range r.Values {
				if err := ctx.Err(); err != nil {
					return err
				}
				o := s.processRow(ctx, r, i, lim)
				if o.err != nil {
					if bad.add(ctx, o.err) {
						continue
					}
					return o.err
				}
				if err := consume(o); err != nil {
					return err
				}
			}
			mstart = time.Now()
			return nil
		})
	}
	if err == nil {
		err = bad.err()
	}
	return err
}
