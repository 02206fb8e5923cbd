package localrun

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// Tracker records what a run is doing that may block: the object reads and
// writes in flight (by shard and URI) and the shards claimed in the ledger,
// so that an interrupted run can say what it waits for, and a run stopped
// at once (a second signal, then os.Exit) can first release its claims: a
// read blocked in the kernel (a hung NFS or FUSE mount, a named pipe) never
// returns to let the shard settle itself. Safe for concurrent use; the zero
// value is not ready: use NewTracker.
type Tracker struct {
	mu      sync.Mutex
	next    int
	ops     map[int]op
	claims  map[claimKey]ledger.Shard
	led     ledger.Ledger
	stopped bool
}

type op struct {
	shard int // -1: not a shard's (planning)
	what  string
	uri   string
	since time.Time
}

type claimKey struct {
	run   string
	shard int
}

// Interrupted is the last error recorded for a shard that an interrupted
// run released (Tracker.ReleaseClaims): not a failure, a rerun resumes it.
const Interrupted = "interrupted"

// NewTracker returns an empty tracker.
func NewTracker() *Tracker {
	return &Tracker{ops: map[int]op{}, claims: map[claimKey]ledger.Shard{}}
}

type shardKey struct{}

// withShard marks ctx as shard i's, for the tracker's messages.
func withShard(ctx context.Context, i int) context.Context {
	return context.WithValue(ctx, shardKey{}, i)
}

func (t *Tracker) begin(ctx context.Context, what, uri string) func() {
	shard, ok := ctx.Value(shardKey{}).(int)
	if !ok {
		shard = -1
	}
	t.mu.Lock()
	id := t.next
	t.next++
	t.ops[id] = op{shard, what, uri, time.Now()}
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		delete(t.ops, id)
		t.mu.Unlock()
	}
}

// Waiting describes the reads and writes in flight, oldest first, one line
// each: "shard 3: reading /data/x.cif (for 12s)".
func (t *Tracker) Waiting() []string {
	t.mu.Lock()
	ops := make([]op, 0, len(t.ops))
	for _, o := range t.ops {
		ops = append(ops, o)
	}
	t.mu.Unlock()
	sort.Slice(ops, func(i, j int) bool { return ops[i].since.Before(ops[j].since) })
	out := make([]string, 0, len(ops))
	for _, o := range ops {
		who := "planning"
		if o.shard >= 0 {
			who = fmt.Sprintf("shard %d", o.shard)
		}
		out = append(out, fmt.Sprintf("%s: %s %s (for %s)", who, o.what, o.uri, time.Since(o.since).Round(100*time.Millisecond)))
	}
	return out
}

// ReleaseClaims puts every shard this run still holds back to pending in
// the ledger (the cause recorded as "interrupted"), so that a rerun
// resumes them at once instead of waiting out their lease, and stops
// recording new claims. It returns the released shards' indices. Call it
// before exiting at once; a shard that settles meanwhile keeps its state
// (a release applies only to the claim it names).
func (t *Tracker) ReleaseClaims(ctx context.Context) ([]int, error) {
	t.mu.Lock()
	t.stopped = true
	led := t.led
	claims := make([]ledger.Shard, 0, len(t.claims))
	for _, s := range t.claims {
		claims = append(claims, s)
	}
	t.mu.Unlock()
	if led == nil {
		return nil, nil
	}
	sort.Slice(claims, func(i, j int) bool { return claims[i].Index < claims[j].Index })
	var released []int
	for _, s := range claims {
		s.Error = Interrupted
		if err := led.Release(ctx, s); err != nil {
			return released, err
		}
		released = append(released, s.Index)
	}
	return released, nil
}

// trackedLedger records the claims made through it in a Tracker.
type trackedLedger struct {
	ledger.Ledger
	t *Tracker
}

func (l trackedLedger) Claim(ctx context.Context, runID string, shard int, lease time.Duration) (ledger.Shard, error) {
	l.t.mu.Lock()
	stopped := l.t.stopped
	l.t.mu.Unlock()
	if stopped { // the run is exiting: claim nothing more
		return ledger.Shard{}, fmt.Errorf("shard %d not claimed: %w", shard, context.Canceled)
	}
	s, err := l.Ledger.Claim(ctx, runID, shard, lease)
	if err == nil && s.Status == ledger.Running {
		l.t.mu.Lock()
		l.t.claims[claimKey{runID, shard}] = s
		l.t.mu.Unlock()
	}
	return s, err
}

func (l trackedLedger) settled(s ledger.Shard) {
	l.t.mu.Lock()
	delete(l.t.claims, claimKey{s.RunID, s.Index})
	l.t.mu.Unlock()
}

func (l trackedLedger) Complete(ctx context.Context, s ledger.Shard) error {
	err := l.Ledger.Complete(ctx, s)
	if err == nil {
		l.settled(s)
	}
	return err
}

func (l trackedLedger) Fail(ctx context.Context, s ledger.Shard) error {
	err := l.Ledger.Fail(ctx, s)
	if err == nil {
		l.settled(s)
	}
	return err
}

func (l trackedLedger) Release(ctx context.Context, s ledger.Shard) error {
	err := l.Ledger.Release(ctx, s)
	if err == nil {
		l.settled(s)
	}
	return err
}

// trackedStore records its reads and writes in a Tracker. It reads local
// objects in place when its store does (see shardfn's localReader).
type trackedStore struct {
	s blob.Store
	t *Tracker
}

type mappedReader interface {
	ReadMappedURI(ctx context.Context, uri string, buf []byte, fn func(data []byte) error) ([]byte, error)
}

func (s trackedStore) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	defer s.t.begin(ctx, "reading", uri)()
	return s.s.ReadAll(ctx, uri)
}

func (s trackedStore) Open(ctx context.Context, uri string) (blob.Object, error) {
	defer s.t.begin(ctx, "opening", uri)()
	return s.s.Open(ctx, uri)
}

func (s trackedStore) Create(ctx context.Context, uri string, data []byte) error {
	defer s.t.begin(ctx, "writing", uri)()
	return s.s.Create(ctx, uri, data)
}

func (s trackedStore) List(ctx context.Context, pattern string) ([]string, error) {
	defer s.t.begin(ctx, "listing", pattern)()
	return s.s.List(ctx, pattern)
}

// ReadsInPlace is the store's answer (blobmux.Mux), or whether it reads
// in place at all.
func (s trackedStore) ReadsInPlace(uri string) bool {
	if rt, ok := s.s.(interface{ ReadsInPlace(uri string) bool }); ok {
		return rt.ReadsInPlace(uri)
	}
	_, ok := s.s.(mappedReader)
	return ok
}

func (s trackedStore) ReadMappedURI(ctx context.Context, uri string, buf []byte, fn func(data []byte) error) ([]byte, error) {
	r, ok := s.s.(mappedReader)
	if !ok {
		return buf[:0], fmt.Errorf("localrun: store %T does not read %s in place", s.s, uri)
	}
	end := s.t.begin(ctx, "reading", uri)
	defer end()
	return r.ReadMappedURI(ctx, uri, buf, func(data []byte) error {
		end() // read: what follows is parsing, not waiting
		return fn(data)
	})
}

// OpenGeneration is the store's (blob.GenerationOpener: a gs:// manifest
// read at the generation planning saw).
func (s trackedStore) OpenGeneration(ctx context.Context, uri string, generation int64) (blob.Object, error) {
	defer s.t.begin(ctx, "opening", uri)()
	g, ok := s.s.(blob.GenerationOpener)
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("%s: generation %d asked for, but this store has no object generations (%T)", uri, generation, s.s))
	}
	return g.OpenGeneration(ctx, uri, generation)
}
