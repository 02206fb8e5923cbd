package tpujob

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// Config are the job's knobs; the zero value takes the defaults.
type Config struct {
	// Devices is the number of device workers; 0 means one per device of
	// the runner's backend. More workers than devices share devices
	// round-robin (simulated devices on the CPU backend).
	Devices int
	// Ladder is the bucket ladder; nil means bio2token.Ladder(DefaultRungs).
	Ladder []int
	// FlushAfter is how long a partial batch waits for more rows (500 ms).
	FlushAfter time.Duration
	// Lease is the shard claim's lease (15 min).
	Lease time.Duration
	// Logger receives one line per shard (slog.Default() when nil).
	Logger *slog.Logger
}

// Job tokenizes shards. Safe for concurrent use: Handle is called once per
// in-flight message; all calls share the scheduler and its devices.
type Job struct {
	cfg    Config
	runner Runner
	store  blob.Store
	ledger ledger.Ledger
	sched  *scheduler
	log    *slog.Logger

	mu      sync.Mutex
	running map[shardKey]chan struct{} // shards a Handle call has, closed when it returns
}

type shardKey struct {
	run   string
	shard int
}

// New compiles the program of every ladder bucket (once per process:
// traffic never compiles again, except the rare input beyond the ladder's
// top, padded to a multiple of 16,384) and starts one worker per device.
// Close stops it.
func New(cfg Config, runner Runner, store blob.Store, l ledger.Ledger) (*Job, error) {
	if cfg.Ladder == nil {
		cfg.Ladder = b2t.Ladder(b2t.DefaultRungs)
	}
	if cfg.Devices <= 0 {
		cfg.Devices = runner.NumDevices()
	}
	if cfg.FlushAfter <= 0 {
		cfg.FlushAfter = 500 * time.Millisecond
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 15 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	for _, b := range cfg.Ladder {
		if err := runner.Compile(b2t.ShapeFor(b)); err != nil {
			return nil, fmt.Errorf("tpujob: compiling bucket %d: %w", b, err)
		}
	}
	return &Job{cfg: cfg, runner: runner, store: store, ledger: l,
		sched: newScheduler(runner, cfg.Ladder, cfg.Devices, cfg.FlushAfter), log: cfg.Logger,
		running: map[shardKey]chan struct{}{}}, nil
}

// Close stops the workers; requests still waiting fail transiently.
func (j *Job) Close() { j.sched.close() }

// Stats is what the job did so far.
type Stats struct {
	Compiles          int
	DeviceBatches     []int64 // batches run per device worker
	DeviceAtoms       []int64 // real atoms per device worker
	PaddedAtoms       int64
	PaddingEfficiency float64
}

// Stats reports compiles, per-device work and padding efficiency.
func (j *Job) Stats() Stats {
	s := Stats{Compiles: j.runner.Compiles(), PaddedAtoms: j.sched.padded.Load()}
	var real int64
	for d := range j.sched.batches {
		s.DeviceBatches = append(s.DeviceBatches, j.sched.batches[d].Load())
		s.DeviceAtoms = append(s.DeviceAtoms, j.sched.atoms[d].Load())
		real += s.DeviceAtoms[d]
	}
	if s.PaddedAtoms > 0 {
		s.PaddingEfficiency = float64(real) / float64(s.PaddedAtoms)
	}
	return s
}

// Handle processes one request. It returns nil when the shard is done (now
// or before: a duplicate delivery is a no-op) — only then may the message
// be acked. The output is written create-only, so a retry after a failed
// ledger update finds and verifies it instead of writing twice. A returned
// error wrapping derrors.ErrTransient (a device, store or ledger failure,
// or ctx ended: a shutdown) is worth a redelivery: the shard was released
// back to pending (Ledger.Release, the cause as its last error), so the
// redelivery need not wait for the lease. A permanent one (bad request or
// staged object) was recorded as failed in the ledger.
//
// Pub/Sub delivers at least once: a second delivery of a shard this job is
// handling (its ack deadline passed under load) waits for the first call
// and then finds the shard done, instead of failing its claim against the
// job's own lease and coming back at once, again and again.
func (j *Job) Handle(ctx context.Context, req Request) (err error) {
	defer derrors.Wrap(&err, "tpujob.Handle(%s, shard %d)", req.RunID, req.Shard)
	if err := req.Validate(); err != nil {
		return derrors.Permanent(err)
	}
	leave, err := j.enter(ctx, shardKey{req.RunID, req.Shard})
	if err != nil {
		return derrors.Transient(err)
	}
	defer leave()
	shard, err := j.ledger.Claim(ctx, req.RunID, req.Shard, j.cfg.Lease)
	if errors.Is(err, derrors.ErrAlreadyDone) {
		return nil
	}
	if err != nil {
		return err
	}
	start := time.Now()
	acc, data, err := j.tokenize(ctx, req)
	if err == nil {
		_, err = createOrVerify(ctx, j.store, req.Output, data)
	}
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted (shutdown): the shard goes back to pending.
			return j.release(ctx, shard, err)
		}
		return ledger.Record(ctx, j.ledger, shard, err)
	}
	sum := sha256.Sum256(data)
	shard.Counts = acc.Counts()
	shard.Output = req.Output
	shard.SHA256 = hex.EncodeToString(sum[:])
	if err := j.ledger.Complete(ctx, shard); err != nil {
		// The output is durable but not recorded: without a release the
		// claim would turn every redelivery away until its lease ends. The
		// redelivery finds and verifies the output.
		return j.release(ctx, shard, err)
	}
	j.log.Info("tokenized shard", "run", req.RunID, "shard", req.Shard, "docs", acc.DocsOut, "seconds", time.Since(start).Seconds())
	return nil
}

// release puts the job's claim on shard back to pending after the
// transient failure (or interruption) err, with err as its last error, even
// when ctx has ended; it returns err as transient.
func (j *Job) release(ctx context.Context, shard ledger.Shard, err error) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return ledger.Record(rctx, j.ledger, shard, derrors.Transient(err))
}

// enter waits until no other Handle call of this job has the shard, then
// takes it; leave gives it back. It fails only when ctx ends first.
func (j *Job) enter(ctx context.Context, k shardKey) (leave func(), err error) {
	for {
		j.mu.Lock()
		busy, ok := j.running[k]
		if !ok {
			done := make(chan struct{})
			j.running[k] = done
			j.mu.Unlock()
			return func() {
				j.mu.Lock()
				delete(j.running, k)
				j.mu.Unlock()
				close(done)
			}, nil
		}
		j.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for this job's other delivery of the shard: %w", ctx.Err())
		}
	}
}

// tokenize reads the staged rows, decodes them with the model of the
// request's format (Register), encodes them through the shared scheduler
// and returns the shard's parquet bytes.
func (j *Job) tokenize(ctx context.Context, req Request) (corpus.Accounting, []byte, error) {
	m, err := lookup(req.Format)
	if err != nil {
		return corpus.Accounting{}, nil, derrors.Permanent(err)
	}
	raw, err := j.store.ReadAll(ctx, req.Staged)
	if err != nil {
		return corpus.Accounting{}, nil, err
	}
	st, err := DecodeStaged(raw)
	if err != nil {
		return corpus.Accounting{}, nil, err
	}
	acc := st.Accounting
	acc.RunID, acc.Shard, acc.Total, acc.Format = req.RunID, req.Shard, req.Total, req.Format
	if acc.Filtered == nil {
		acc.Filtered = map[string]int64{}
	}
	inputs := make([]*b2t.Input, len(st.Rows))
	for i, r := range st.Rows {
		in, err := m.Decode(r.Input)
		if err != nil {
			return acc, nil, derrors.Permanent(fmt.Errorf("staged row %d (%s): %w", i, r.EntryID, err))
		}
		inputs[i] = in
	}
	// Rows that can never get a document are filtered before the encoder.
	p := newPending(len(st.Rows))
	var items []item
	for i, in := range inputs {
		if len(in.ResNames) > b2t.MaxResidues || b2t.AtomBudget(len(in.ResNames)) <= 0 {
			p.deliver(i, nil, nil)
			continue
		}
		items = append(items, item{p, i, in})
	}
	j.sched.submit(items)
	codes, err := p.wait(ctx)
	if err != nil {
		return acc, nil, err
	}

	schema := corpus.NewSchema(m.Columns, st.Passthrough)
	w, err := corpus.NewWriter(schema)
	if err != nil {
		return acc, nil, err
	}
	defer w.Close()
	w.ExpectRows(int64(len(st.Rows)))
	for i, r := range st.Rows {
		res, err := m.Result(r.EntryID, inputs[i], codes[i])
		if err != nil {
			return acc, nil, derrors.Permanent(fmt.Errorf("row %s: %w", r.EntryID, err))
		}
		if res.Filtered != "" {
			acc.Filtered[res.Filtered]++
			continue
		}
		byName := map[string]any{corpus.EntryID: r.EntryID, corpus.Structure: r.Structure, corpus.Document: res.Document}
		sum := sha1.Sum([]byte(res.Document))
		byName[corpus.SHA1] = hex.EncodeToString(sum[:])
		for k, c := range m.Columns {
			byName[c.Name] = res.Values[k]
		}
		for k, c := range st.Passthrough {
			if _, ok := byName[c.Name]; !ok {
				byName[c.Name] = r.Passthrough[k]
			}
		}
		row := make([]any, len(schema.Columns))
		for k, c := range schema.Columns {
			row[k] = byName[c.Name]
		}
		if err := w.Append(row); err != nil {
			return acc, nil, derrors.Permanent(fmt.Errorf("row %s: %w", r.EntryID, err))
		}
		acc.DocsOut++
	}
	if !acc.Balanced() {
		return acc, nil, derrors.Permanent(fmt.Errorf("accounting does not balance: rows_in %d, docs %d, filtered %v, skipped %d", acc.RowsIn, acc.DocsOut, acc.Filtered, acc.Skipped))
	}
	data, err := w.Finish(acc)
	return acc, data, err
}
