package shardfn

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// processRow fetches (URI mode) or takes (inline mode) row i's input, parses
// it and generates its outcome. It never panics on bad input: a failure is
// returned in rowOut.err as a *RowError.
//
// lim bounds the fetches and the CPU work in flight and lends the row
// memory (see rowLimits); its zero value bounds nothing.
func (s *shardRun) processRow(ctx context.Context, rows *manifest.Rows, i int, lim rowLimits) rowOut {
	msg, f, passIdx := s.msg, s.f, s.in.passIdx
	r := &rowRun{ctx: ctx, deps: s.deps, msg: msg, f: f, rows: rows, vals: rows.Values[i], lim: lim, raw: format.ReadsRaw(f)}
	o := &r.o
	o.entryID = entryID(r.vals[0])
	o.row = rows.First + int64(i)
	if o.entryID == "" {
		return r.fail("manifest", derrors.Permanent(errors.New("empty entry_id")))
	}
	o.pass = make([]any, len(passIdx))
	for k, j := range passIdx {
		o.pass[k] = r.vals[j]
	}
	r.in = format.Input{EntryID: o.entryID}
	if f.Kind() == format.FromRecord || len(f.RecordColumns()) > 0 {
		r.in.Record = make(map[string]any, len(rows.Columns))
		for j, name := range rows.Columns[:min(len(rows.Columns), len(msg.Columns))] {
			r.in.Record[name] = r.vals[j] // not the columns read for seqLenCheck only
		}
	}
	if f.Kind() == format.FromStructure {
		release, done := r.readInput()
		defer release()
		if done {
			return r.o
		}
	}
	if !r.generated {
		start := time.Now()
		o.result, o.err = generateSafely(f, r.in)
		o.generate = time.Since(start)
	}
	if err := o.err; err != nil {
		o.err = nil
		return r.fail("generate", derrors.Permanent(err))
	}
	return r.o
}

// rowRun is one row's work in processRow: its inputs, the format's input
// being built, and its outcome.
type rowRun struct {
	ctx  context.Context
	deps Deps
	msg  queue.ShardMessage
	f    format.Format
	rows *manifest.Rows
	vals []any
	lim  rowLimits
	raw  bool // the format reads the object's bytes itself (format.Raw)
	in   format.Input
	o    rowOut
	// generated: a raw format generated inside the local read, where the
	// mapped bytes are valid
	generated bool
}

// fail records the row's failure at stage and returns its outcome.
func (r *rowRun) fail(stage string, err error) rowOut {
	r.o.err = &RowError{EntryID: r.o.entryID, Row: r.o.row, Stage: stage, Err: err}
	return r.o
}

// fetchErr records a failed read: skipped for a missing object in lenient
// mode, else a fetch failure (transient when the read was interrupted).
func (r *rowRun) fetchErr(err error) {
	if errors.Is(err, derrors.ErrNotFound) && r.msg.LenientMissing {
		r.o.skipped = true
		return
	}
	switch {
	case r.ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded):
		err = derrors.Transient(err)
	case !errors.Is(err, derrors.ErrTransient):
		err = derrors.Permanent(err)
	}
	r.fail("fetch", err)
}

// readInput fetches, reads and parses a structure row's object into r.in
// (or, for a raw format reading a local file, generates inside the read).
// done: the row's outcome is settled (a failure or a skip). release gives
// back the row's CPU slot and memory once the row is generated.
func (r *rowRun) readInput() (release func(), done bool) {
	nothing := func() {}
	ctx, lim, o := r.ctx, r.lim, &r.o
	var data []byte
	uri := ""
	var lr localReader
	local := false
	if r.msg.URIColumn != "" {
		uri, _ = r.vals[r.rows.Index(r.msg.URIColumn)].(string)
		if uri == "" {
			r.fail("fetch", derrors.Permanent(fmt.Errorf("empty %s", r.msg.URIColumn)))
			return nothing, true
		}
		o.structure, r.in.URI = uri, uri
		lr, local = readsInPlace(r.deps.Store, uri)
		if !local { // a remote read waits, holding a fetch slot only
			if !lim.acquire(ctx, lim.fetch) {
				r.fail("fetch", ctx.Err())
				return nothing, true
			}
			start := time.Now()
			var err error
			data, err = r.deps.Store.ReadAll(ctx, uri)
			o.fetch = time.Since(start)
			lim.release(lim.fetch)
			if err != nil {
				r.fetchErr(err)
				return nothing, true
			}
		}
	} else {
		text, _ := r.vals[r.rows.Index(r.msg.TextColumn)].(string)
		o.structure = fmt.Sprintf("%s#row=%d", r.msg.Manifest, o.row)
		data = []byte(text)
	}
	// The CPU work (a local read, parse, generate) holds a CPU slot, so
	// that only as many rows as cores hold a structure at once.
	if !lim.acquire(ctx, lim.cpu) {
		r.fail("parse", ctx.Err())
		return nothing, true
	}
	releaseCPU := func() { lim.release(lim.cpu) }
	// The row's object bytes and structure come from the free list and go
	// back once Generate has returned: no format keeps the structure or
	// its slices (distancesv2 and bio2token copy what they use; names are
	// immutable strings), and the parser keeps no byte of its input, so
	// the next row may overwrite both.
	m := lim.mems.get()
	var err error
	start := time.Now()
	switch {
	case local:
		var ok bool
		if ok, err = r.readLocal(uri, lr, m, &start); !ok {
			return releaseCPU, true
		}
	case r.raw:
		r.in.Data = data
	default:
		err = parseSafely(r.deps.Parse, &m.st, data)
	}
	if !r.generated {
		o.parse = time.Since(start)
	}
	if err != nil {
		// not reused: a parser that panicked may have left it in any state
		if r.msg.LenientParse {
			o.skipped, o.parseErr = true, boundError(derrors.Describe(err))
			return releaseCPU, true
		}
		r.fail("parse", derrors.Permanent(err))
		return releaseCPU, true
	}
	if !r.raw {
		r.in.Structure = &m.st
		o.suspect = seqLenCheck(r.rows, r.vals, &m.st)
	}
	return func() { lim.mems.put(m); releaseCPU() }, false
}

// readLocal reads a local file straight from its mapping (large files) or
// the row's buffer (small ones), without a copy, and parses it into m (or,
// for a raw format, generates from the bytes while they are valid). The
// parser's panics are recovered outside the read, so that a fault on a
// mapped page (the file truncated meanwhile) reaches ReadMappedURI, which
// makes it an error. ok is false when the file could not be read or
// changed under the mapping: the read's failure is recorded, and m, which
// may be half-built, is not reused.
func (r *rowRun) readLocal(uri string, lr localReader, m *rowMem, start *time.Time) (ok bool, err error) {
	called := false
	err = recoverPanic(func() error {
		buf, err := lr.ReadMappedURI(r.ctx, uri, m.buf, func(data []byte) error {
			called = true
			r.o.fetch = time.Since(*start)
			*start = time.Now()
			if r.raw { // the format reads the bytes, valid only here
				r.in.Data = data
				gstart := time.Now()
				r.o.result, r.o.err = generateSafely(r.f, r.in)
				r.o.generate, r.generated = time.Since(gstart), true
				r.in.Data = nil
				return nil
			}
			return r.deps.Parse(&m.st, data)
		})
		m.buf = buf[:0]
		return err
	})
	if !called || errors.Is(err, blob.ErrFileChanged) {
		if called {
			m.st = structure.Structure{}
		}
		r.lim.mems.put(m)
		r.fetchErr(err)
		return false, err
	}
	return true, err
}

// localReader is a store that hands a local object's bytes to a
// callback, mapped where it can, else read into the caller's buffer
// (localblob.Store; see localblob.ReadMapped's contract): the parse runs
// inside the callback, on this goroutine, and keeps nothing of the bytes,
// and rows reuse their buffers instead of allocating, zeroing and
// collecting one per object.
type localReader interface {
	ReadMappedURI(ctx context.Context, uri string, buf []byte, fn func(data []byte) error) ([]byte, error)
}

// readsInPlace returns store as a localReader and whether it reads uri in
// place (a local read, done under a CPU slot): always for a localReader,
// for the URIs it says for a router (blobmux.Mux: paths and file://, not
// gs://).
func readsInPlace(store blob.Store, uri string) (localReader, bool) {
	r, ok := store.(localReader)
	if !ok {
		return nil, false
	}
	if rt, ok := store.(interface{ ReadsInPlace(uri string) bool }); ok {
		return r, rt.ReadsInPlace(uri)
	}
	return r, true
}

// rowMem is the memory one row reads into: its object's bytes and the
// structure parsed from them (Deps.Parse reuses a structure's memory).
type rowMem struct {
	buf []byte
	st  structure.Structure
}

// rowLimits are a shard's bounds on rows in flight: fetch slots (remote
// reads in flight), CPU slots (rows reading a local file, parsing or
// generating; as many as cores) and the free list of row memory, as large
// as the CPU slots. Nil channels bound nothing.
type rowLimits struct {
	fetch, cpu chan struct{}
	mems       rowMems
}

// acquire takes a slot of sem (nil: none); false when ctx is done first.
func (rowLimits) acquire(ctx context.Context, sem chan struct{}) bool {
	if sem == nil {
		return true
	}
	select {
	case sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (rowLimits) release(sem chan struct{}) {
	if sem != nil {
		<-sem
	}
}

// rowMems is a shard's free list of row memory, as large as its rows in
// flight. Unlike a sync.Pool it survives garbage collections (several per
// shard), and it goes away with the shard. A nil list gives fresh memory.
type rowMems chan *rowMem

func (l rowMems) get() *rowMem {
	select {
	case m := <-l:
		return m
	default:
		return new(rowMem)
	}
}

func (l rowMems) put(m *rowMem) {
	select {
	case l <- m:
	default:
	}
}

// parseSafely turns a parser panic into an error: bad input must fail the
// row, not the process.
func parseSafely(parse func(*structure.Structure, []byte) error, st *structure.Structure, data []byte) (err error) {
	return recoverPanic(func() error { return parse(st, data) })
}

// recoverPanic calls parse, a panic turned into an error.
func recoverPanic(parse func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser panicked: %v", r)
		}
	}()
	return parse()
}

func generateSafely(f format.Format, in format.Input) (res format.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("format panicked: %v", r)
		}
	}()
	return f.Generate(in)
}

// fetchPool processes the rows with at most FetchConcurrency fetches in
// flight and hands the outcomes to consume strictly in input order. Parsing
// and generating happen outside the fetch slots, so the fetches stay busy
// while the CPU works. At most 2*FetchConcurrency rows are in flight or
// waiting to be consumed, which bounds memory. A bad row (a permanent row
// failure) is recorded in bad and the pool goes on; any other failure (a
// transient one, a cancelled ctx, an error from consume) stops the pool and
// is returned.
func (s *shardRun) fetchPool(ctx context.Context, batches []*manifest.Rows, bad *badRows, consume func(rowOut) error) error {
	conc := s.deps.FetchConcurrency
	if conc <= 0 {
		conc = DefaultFetchConcurrency
	}
	type ref struct {
		rows *manifest.Rows
		i    int
	}
	var refs []ref
	for _, b := range batches {
		for i := range b.Values {
			refs = append(refs, ref{b, i})
		}
	}
	slots := make([]chan rowOut, len(refs))
	for i := range slots {
		slots[i] = make(chan rowOut, 1)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window := make(chan struct{}, 2*conc)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2 * conc)
	fetchSem := make(chan struct{}, conc)
	cores := runtime.GOMAXPROCS(0)
	lim := rowLimits{fetch: fetchSem, cpu: make(chan struct{}, cores), mems: make(rowMems, cores)}
	producerDone := make(chan struct{})
	go func() {
		defer close(producerDone)
		for i, r := range refs {
			select {
			case window <- struct{}{}:
			case <-gctx.Done():
				return
			}
			g.Go(func() error {
				slots[i] <- s.processRow(gctx, r.rows, r.i, lim)
				return nil
			})
		}
	}()
	var err error
	for i := range refs {
		var o rowOut
		select {
		case o = <-slots[i]:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			break
		}
		if o.err != nil {
			if bad.add(ctx, o.err) {
				<-window
				continue
			}
			err = o.err
			break
		}
		if err = consume(o); err != nil {
			break
		}
		<-window
	}
	cancel()
	<-producerDone
	_ = g.Wait()
	if err == nil {
		err = parent.Err()
	}
	return err
}
