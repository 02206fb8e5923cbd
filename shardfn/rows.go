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
func processRow(ctx context.Context, deps Deps, msg queue.ShardMessage, f format.Format, rows *manifest.Rows, i int, passIdx []int, lim rowLimits) (o rowOut) {
	vals := rows.Values[i]
	o.entryID = entryID(vals[0])
	rowNum := rows.First + int64(i)
	o.row = rowNum
	fail := func(stage string, err error) rowOut {
		o.err = &RowError{EntryID: o.entryID, Row: rowNum, Stage: stage, Err: err}
		return o
	}
	if o.entryID == "" {
		return fail("manifest", derrors.Permanent(errors.New("empty entry_id")))
	}
	o.pass = make([]any, len(passIdx))
	for k, j := range passIdx {
		o.pass[k] = vals[j]
	}
	in := format.Input{EntryID: o.entryID}
	if f.Kind() == format.FromRecord || len(f.RecordColumns()) > 0 {
		in.Record = make(map[string]any, len(rows.Columns))
		for j, name := range rows.Columns[:min(len(rows.Columns), len(msg.Columns))] {
			in.Record[name] = vals[j] // not the columns read for seqLenCheck only
		}
	}
	raw := format.ReadsRaw(f)
	generated := false // a raw format generated inside the local read
	if f.Kind() == format.FromStructure {
		// fetchErr turns a failed read into the row's outcome; skip is
		// true for a missing object in lenient mode.
		fetchErr := func(err error) (skip bool, _ rowOut) {
			if errors.Is(err, derrors.ErrNotFound) && msg.LenientMissing {
				o.skipped = true
				return true, o
			}
			switch {
			case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded):
				err = derrors.Transient(err)
			case !errors.Is(err, derrors.ErrTransient):
				err = derrors.Permanent(err)
			}
			return false, fail("fetch", err)
		}
		var data []byte
		uri := ""
		var lr localReader
		local := false
		if msg.URIColumn != "" {
			uri, _ = vals[rows.Index(msg.URIColumn)].(string)
			if uri == "" {
				return fail("fetch", derrors.Permanent(fmt.Errorf("empty %s", msg.URIColumn)))
			}
			o.structure = uri
			lr, local = readsInPlace(deps.Store, uri)
			if !local { // a remote read waits, holding a fetch slot only
				if !lim.acquire(ctx, lim.fetch) {
					return fail("fetch", ctx.Err())
				}
				start := time.Now()
				var err error
				data, err = deps.Store.ReadAll(ctx, uri)
				o.fetch = time.Since(start)
				lim.release(lim.fetch)
				if err != nil {
					_, o = fetchErr(err)
					return o
				}
			}
		} else {
			text, _ := vals[rows.Index(msg.TextColumn)].(string)
			o.structure = fmt.Sprintf("%s#row=%d", msg.Manifest, rowNum)
			data = []byte(text)
		}
		// The CPU work (a local read, parse, generate) holds a CPU slot, so
		// that only as many rows as cores hold a structure at once.
		if !lim.acquire(ctx, lim.cpu) {
			return fail("parse", ctx.Err())
		}
		defer lim.release(lim.cpu)
		// The row's object bytes and structure come from the free list
		// and go back once Generate has returned: no format keeps the
		// structure or its slices (cadv2 and bio2token copy what they use;
		// names are immutable strings), and the parser keeps no byte of
		// its input, so the next row may overwrite both.
		m := lim.mems.get()
		var err error
		start := time.Now()
		if local {
			// A local file is parsed straight from its mapping (large
			// files) or the row's buffer (small ones): no copy.
			// The parser's panics are recovered outside the read, so
			// that a fault on a mapped page (the file truncated
			// meanwhile) reaches ReadMappedURI, which makes it an error.
			called := false
			err = recoverPanic(func() error {
				buf, err := lr.ReadMappedURI(ctx, uri, m.buf, func(data []byte) error {
					called = true
					o.fetch = time.Since(start)
					start = time.Now()
					if raw { // the format reads the bytes, valid only here
						in.Data = data
						gstart := time.Now()
						o.result, o.err = generateSafely(f, in)
						o.generate, generated = time.Since(gstart), true
						in.Data = nil
						return nil
					}
					return deps.Parse(&m.st, data)
				})
				m.buf = buf[:0]
				return err
			})
			if !called || errors.Is(err, blob.ErrFileChanged) {
				// the file could not be read, or changed under the
				// mapping: the structure may be half-built
				if called {
					m.st = structure.Structure{}
				}
				lim.mems.put(m)
				_, o = fetchErr(err)
				return o
			}
		} else if raw {
			in.Data = data
		} else {
			err = parseSafely(deps.Parse, &m.st, data)
		}
		if !generated {
			o.parse = time.Since(start)
		}
		if err != nil {
			// not reused: a parser that panicked may have left it in any state
			if msg.LenientParse {
				o.skipped, o.parseErr = true, boundError(derrors.Describe(err))
				return o
			}
			return fail("parse", derrors.Permanent(err))
		}
		defer lim.mems.put(m)
		if !raw {
			in.Structure = &m.st
			o.suspect = seqLenCheck(rows, vals, &m.st)
		}
	}
	if !generated {
		start := time.Now()
		o.result, o.err = generateSafely(f, in)
		o.generate = time.Since(start)
	}
	if err := o.err; err != nil {
		o.err = nil
		return fail("generate", derrors.Permanent(err))
	}
	return o
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
func fetchPool(ctx context.Context, deps Deps, msg queue.ShardMessage, f format.Format, batches []*manifest.Rows, passIdx []int, bad *badRows, consume func(rowOut) error) error {
	conc := deps.FetchConcurrency
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
				slots[i] <- processRow(gctx, deps, msg, f, r.rows, r.i, passIdx, lim)
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
