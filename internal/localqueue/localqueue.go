// Package localqueue is the in-process queue.Publisher of local runs: an
// unbounded FIFO that shard workers drain with Receive. Nothing survives the
// process; durability comes from the ledger (a rerun publishes again every
// shard that is not done).
package localqueue

import (
	"context"
	"sync"

	"github.com/foldcorpus/foldcorpus/internal/queue"
)

// Queue is safe for concurrent use. The zero value is not usable; use New.
type Queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	msgs   []queue.ShardMessage
	closed bool
}

var _ queue.Publisher = (*Queue)(nil)

// New returns an empty open queue.
func New() *Queue {
	q := &Queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Publish appends msg. Publishing after Close is a no-op returning nil only
// if the context is already done; otherwise it panics, as that is a bug.
func (q *Queue) Publish(ctx context.Context, msg queue.ShardMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		panic("localqueue: Publish after Close")
	}
	q.msgs = append(q.msgs, msg)
	q.cond.Signal()
	return nil
}

// PublishAll appends msgs in order, at once (receivers see all or none of
// them). Same rules as Publish.
func (q *Queue) PublishAll(ctx context.Context, msgs []queue.ShardMessage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		panic("localqueue: PublishAll after Close")
	}
	q.msgs = append(q.msgs, msgs...)
	q.cond.Broadcast()
	return nil
}

// Close marks the end of publishing: Receive returns false once the queue is
// drained.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// Len returns the number of messages waiting.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.msgs)
}

// Receive returns the next message in publish order, blocking until one is
// published; ok is false when the queue is closed and empty, or ctx is done.
func (q *Queue) Receive(ctx context.Context) (msg queue.ShardMessage, ok bool) {
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.msgs) == 0 && !q.closed && ctx.Err() == nil {
		q.cond.Wait()
	}
	if len(q.msgs) == 0 || ctx.Err() != nil {
		return msg, false
	}
	msg = q.msgs[0]
	q.msgs = q.msgs[1:]
	return msg, true
}
