package shardfn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

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
// fetchSem, when not nil, bounds the fetches in flight: it is held only
// around the object read, so parsing and generating never hold a fetch slot.
func processRow(ctx context.Context, deps Deps, msg queue.ShardMessage, f format.Format, rows *manifest.Rows, i int, passIdx []int, fetchSem chan struct{}) (o rowOut) {
	vals := rows.Values[i]
	o.entryID = entryID(vals[0])
	rowNum := rows.First + int64(i)
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
	if f.Kind() == format.FromRecord {
		in.Record = make(map[string]any, len(rows.Columns))
		for j, name := range rows.Columns {
			in.Record[name] = vals[j]
		}
	} else {
		var data []byte
		if msg.URIColumn != "" {
			uri, _ := vals[rows.Index(msg.URIColumn)].(string)
			if uri == "" {
				return fail("fetch", derrors.Permanent(fmt.Errorf("empty %s", msg.URIColumn)))
			}
			o.structure = uri
			if fetchSem != nil {
				select {
				case fetchSem <- struct{}{}:
				case <-ctx.Done():
					return fail("fetch", ctx.Err())
				}
			}
			start := time.Now()
			var err error
			data, err = deps.Store.ReadAll(ctx, uri)
			o.fetch = time.Since(start)
			if fetchSem != nil {
				<-fetchSem
			}
			if errors.Is(err, derrors.ErrNotFound) && msg.LenientMissing {
				o.skipped = true
				return o
			}
			if err != nil {
				switch {
				case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded):
					err = derrors.Transient(err)
				case !errors.Is(err, derrors.ErrTransient):
					err = derrors.Permanent(err)
				}
				return fail("fetch", err)
			}
		} else {
			text, _ := vals[rows.Index(msg.TextColumn)].(string)
			o.structure = fmt.Sprintf("%s#row=%d", msg.Manifest, rowNum)
			data = []byte(text)
		}
		st := structures.Get().(*structure.Structure)
		start := time.Now()
		err := parseSafely(deps.Parse, st, data)
		o.parse = time.Since(start)
		if err != nil {
			// not reused: a parser that panicked may have left st in any state
			return fail("parse", derrors.Permanent(err))
		}
		// Back to the pool once Generate has returned: no format keeps the
		// structure or its slices (cadv2 and bio2token copy what they use;
		// names are immutable strings), so the next row may overwrite it.
		defer structures.Put(st)
		in.Structure = st
	}
	start := time.Now()
	res, err := generateSafely(f, in)
	o.generate = time.Since(start)
	if err != nil {
		return fail("generate", derrors.Permanent(err))
	}
	o.result = res
	return o
}

// structures are the parsed structures that rows parse into (Deps.Parse)
// and reuse, so that a row's parse allocates almost nothing.
var structures = sync.Pool{New: func() any { return new(structure.Structure) }}

// parseSafely turns a parser panic into an error: bad input must fail the
// row, not the process.
func parseSafely(parse func(*structure.Structure, []byte) error, st *structure.Structure, data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser panicked: %v", r)
		}
	}()
	return parse(st, data)
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
				slots[i] <- processRow(gctx, deps, msg, f, r.rows, r.i, passIdx, fetchSem)
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
