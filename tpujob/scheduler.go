package tpujob

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Runner runs fixed-shape batches on devices; *neural.Encoder is the
// real one. Implementations are safe for concurrent use by one goroutine
// per device.
type Runner interface {
	Compile(s b2t.Shape) error
	Compiles() int
	NumDevices() int
	RunBatch(device int, b b2t.Batch, inputs []*b2t.Input) ([][]int32, error)
}

// pending collects the codes of one request's rows.
type pending struct {
	mu    sync.Mutex
	codes [][]int32
	left  int
	err   error
	done  chan struct{}
}

func newPending(n int) *pending {
	p := &pending{codes: make([][]int32, n), left: n, done: make(chan struct{})}
	if n == 0 {
		close(p.done)
	}
	return p
}

func (p *pending) deliver(idx int, codes []int32, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left == 0 {
		return
	}
	if err != nil && p.err == nil {
		p.err = err
	}
	p.codes[idx] = codes
	p.left--
	if p.left == 0 {
		close(p.done)
	}
}

// wait returns the codes once every row is encoded, the first batch
// error, or ctx's error.
func (p *pending) wait(ctx context.Context) ([][]int32, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return p.codes, p.err
}

type item struct {
	p   *pending
	idx int
	in  *b2t.Input
}

type work struct {
	shape b2t.Shape
	items []item
}

// scheduler queues rows by bucket across all in-flight requests, cuts
// full batches at once and partial ones after flushAfter, and feeds one
// worker goroutine per device.
type scheduler struct {
	runner     Runner
	ladder     []int
	flushAfter time.Duration

	mu     sync.Mutex
	queues map[int][]item
	oldest map[int]time.Time

	work    chan work
	stop    chan struct{}
	wg      sync.WaitGroup
	batches []atomic.Int64 // per device
	atoms   []atomic.Int64 // real atoms per device
	padded  atomic.Int64   // padded atoms, all devices
}

func newScheduler(r Runner, ladder []int, devices int, flushAfter time.Duration) *scheduler {
	s := &scheduler{
		runner: r, ladder: ladder, flushAfter: flushAfter,
		queues: map[int][]item{}, oldest: map[int]time.Time{},
		work: make(chan work), stop: make(chan struct{}),
		batches: make([]atomic.Int64, devices), atoms: make([]atomic.Int64, devices),
	}
	for d := 0; d < devices; d++ {
		s.wg.Add(1)
		go s.worker(d)
	}
	s.wg.Add(1)
	go s.flusher()
	return s
}

// submit queues items and dispatches the batches that became full. It
// blocks while every device is busy (back-pressure).
func (s *scheduler) submit(items []item) {
	var ready []work
	s.mu.Lock()
	for _, it := range items {
		b := b2t.BucketFor(s.ladder, it.in.NumAtoms())
		if len(s.queues[b]) == 0 {
			s.oldest[b] = time.Now()
		}
		s.queues[b] = append(s.queues[b], it)
		shape := b2t.ShapeFor(b)
		if len(s.queues[b]) == shape.Batch {
			ready = append(ready, work{shape, s.queues[b]})
			s.queues[b] = nil
		}
	}
	s.mu.Unlock()
	for _, w := range ready {
		s.dispatch(w)
	}
}

// dispatch hands w to a device worker, or fails its rows once stopped.
func (s *scheduler) dispatch(w work) bool {
	select {
	case s.work <- w:
		return true
	case <-s.stop:
		for _, it := range w.items {
			it.p.deliver(it.idx, nil, derrors.Transient(fmt.Errorf("tpujob stopped")))
		}
		return false
	}
}

// flusher dispatches partial batches whose oldest row waited flushAfter.
func (s *scheduler) flusher() {
	defer s.wg.Done()
	t := time.NewTicker(max(s.flushAfter/4, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			var ready []work
			s.mu.Lock()
			for b, q := range s.queues {
				if len(q) > 0 && now.Sub(s.oldest[b]) >= s.flushAfter {
					ready = append(ready, work{b2t.ShapeFor(b), q})
					s.queues[b] = nil
				}
			}
			s.mu.Unlock()
			for _, w := range ready {
				s.dispatch(w)
			}
		}
	}
}

func (s *scheduler) worker(device int) {
	defer s.wg.Done()
	for {
		var w work
		select {
		case <-s.stop:
			return
		case w = <-s.work:
		}
		inputs := make([]*b2t.Input, len(w.items))
		batch := b2t.Batch{Shape: w.shape, Items: make([]int, len(w.items))}
		real := 0
		for i, it := range w.items {
			inputs[i] = it.in
			batch.Items[i] = i
			real += it.in.NumAtoms()
		}
		codes, err := s.runner.RunBatch(device, batch, inputs)
		if err != nil {
			err = derrors.Transient(fmt.Errorf("device %d, batch %+v: %w", device, w.shape, err))
		} else {
			s.batches[device].Add(1)
			s.atoms[device].Add(int64(real))
			s.padded.Add(int64(w.shape.Batch * w.shape.Length))
		}
		for i, it := range w.items {
			var c []int32
			if err == nil {
				c = codes[i]
			}
			it.p.deliver(it.idx, c, err)
		}
	}
}

// close stops the flusher and the workers; queued rows fail transiently.
func (s *scheduler) close() {
	close(s.stop)
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for b, q := range s.queues {
		for _, it := range q {
			it.p.deliver(it.idx, nil, derrors.Transient(fmt.Errorf("tpujob stopped")))
		}
		s.queues[b] = nil
	}
}
