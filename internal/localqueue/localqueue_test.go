package localqueue

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/queue"
)

func TestFIFOAndClose(t *testing.T) {
	q := New()
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := q.Publish(ctx, queue.ShardMessage{Shard: i}); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan int, 4)
	go func() {
		for {
			m, ok := q.Receive(ctx)
			if !ok {
				close(got)
				return
			}
			got <- m.Shard
		}
	}()
	time.Sleep(10 * time.Millisecond)
	q.Close()
	var order []int
	for s := range got {
		order = append(order, s)
	}
	if len(order) != 3 || order[0] != 0 || order[2] != 2 {
		t.Errorf("received %v, want [0 1 2]", order)
	}
	cctx, cancel := context.WithCancel(ctx)
	q2 := New()
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if _, ok := q2.Receive(cctx); ok {
		t.Error("Receive on an empty queue returned a message after cancel")
	}
}

func TestPublishAllKeepsOrder(t *testing.T) {
	q := New()
	ctx := context.Background()
	if err := q.Publish(ctx, queue.ShardMessage{Shard: 9}); err != nil {
		t.Fatal(err)
	}
	if err := q.PublishAll(ctx, []queue.ShardMessage{{Shard: 0}, {Shard: 1}, {Shard: 2}}); err != nil {
		t.Fatal(err)
	}
	q.Close()
	var order []int
	for {
		m, ok := q.Receive(ctx)
		if !ok {
			break
		}
		order = append(order, m.Shard)
	}
	if got := fmt.Sprint(order); got != "[9 0 1 2]" {
		t.Errorf("received %s, want [9 0 1 2]", got)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := New().PublishAll(cctx, []queue.ShardMessage{{}}); err == nil {
		t.Error("PublishAll with a cancelled context = nil, want its error")
	}
}
