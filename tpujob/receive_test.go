package tpujob

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	pubsubpb "cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// failOnce fails the first batch it is given.
type failOnce struct {
	Runner
	failed atomic.Bool
}

func (f *failOnce) RunBatch(device int, b b2t.Batch, inputs []*b2t.Input) ([][]int32, error) {
	if f.failed.CompareAndSwap(false, true) {
		return nil, errors.New("injected device failure")
	}
	return f.Runner.RunBatch(device, b, inputs)
}

// ackWatch records, for each output write, whether the shard's message had
// already been acked (it must not have been).
type ackWatch struct {
	blob.Store
	srv      *pstest.Server
	ids      map[string]string // output URI -> message id
	mu       sync.Mutex
	msgMu    sync.Mutex
	creates  map[string]int
	ackedPre []string
}

func (a *ackWatch) Create(ctx context.Context, uri string, data []byte) error {
	a.mu.Lock()
	if id, ok := a.ids[uri]; ok {
		if acks, _ := a.message(id); acks > 0 {
			a.ackedPre = append(a.ackedPre, uri)
		}
	}
	a.mu.Unlock()
	err := a.Store.Create(ctx, uri, data)
	if err == nil {
		a.mu.Lock()
		a.creates[uri]++
		a.mu.Unlock()
	}
	return err
}

// message returns a message's acks and deliveries. pstest's Message
// updates the returned struct in place, so calls are serialized here.
func (a *ackWatch) message(id string) (acks, deliveries int) {
	a.msgMu.Lock()
	defer a.msgMu.Unlock()
	if m := a.srv.Message(id); m != nil {
		return m.Acks, m.Deliveries
	}
	return 0, 0
}

// TestPubSubRequestsToDocuments: requests published to a pstest topic come
// out as documents; each message is acked only after its shard's parquet
// is written and the shard is done; a failed batch nacks its shards, which
// are redelivered and finished without a duplicate output.
func TestPubSubRequestsToDocuments(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lengths := [][]int{{5, 16, 30, 64}, {17, 9}, {33, 2, 40}}
	f := newFixture(t, len(lengths), lengths)

	srv := pstest.NewServer()
	defer srv.Close()
	client, err := pubsub.NewClient(ctx, "p", option.WithEndpoint(srv.Addr), option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := client.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: "projects/p/topics/tokenize"}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{
		Name: "projects/p/subscriptions/tpujob", Topic: "projects/p/topics/tokenize", AckDeadlineSeconds: 60,
	}); err != nil {
		t.Fatal(err)
	}
	pub := client.Publisher("tokenize")
	watch := &ackWatch{Store: f.store, srv: srv, ids: map[string]string{}, creates: map[string]int{}}
	for _, req := range f.reqs {
		data, _ := json.Marshal(req)
		id, err := pub.Publish(ctx, &pubsub.Message{Data: data, Attributes: map[string]string{"run": req.RunID, "shard": strconv.Itoa(req.Shard)}}).Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		watch.ids[req.Output] = id
	}
	pub.Stop()

	runner := &failOnce{Runner: f.enc}
	job, err := New(Config{Devices: 2, Ladder: testLadder, FlushAfter: 20 * time.Millisecond}, runner, watch, f.ledger)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	recvErr := make(chan error, 1)
	go func() { recvErr <- job.Receive(ctx, client.Subscriber("tpujob"), 8) }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		acked := 0
		for _, id := range watch.ids {
			if acks, _ := watch.message(id); acks > 0 {
				acked++
			}
		}
		if acked == len(f.reqs) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages acked after 60 s", acked, len(f.reqs))
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-recvErr; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Receive: %v", err)
	}

	if !runner.failed.Load() {
		t.Fatal("the injected batch failure never happened")
	}
	if len(watch.ackedPre) > 0 {
		t.Errorf("messages acked before their output was written: %v", watch.ackedPre)
	}
	redelivered := 0
	for uri, id := range watch.ids {
		if n := watch.creates[uri]; n != 1 {
			t.Errorf("%s written %d times, want once", uri, n)
		}
		if _, deliveries := watch.message(id); deliveries > 1 {
			redelivered++
		}
	}
	if redelivered == 0 {
		t.Error("no message was redelivered after the failed batch")
	}
	shards, err := f.ledger.Shards(context.Background(), "run1")
	if err != nil {
		t.Fatal(err)
	}
	retried := 0
	for _, s := range shards {
		if s.Status != ledger.Done {
			t.Errorf("shard %d is %s", s.Index, s.Status)
		}
		if s.Attempts > 1 {
			retried++
			if s.LastError == "" {
				t.Errorf("shard %d was retried but its last error is empty", s.Index)
			}
		}
	}
	if retried == 0 {
		t.Error("no shard was attempted twice")
	}
	f.checkOutputs(t)
	t.Logf("%d of %d messages redelivered; %d shards retried; stats %+v", redelivered, len(f.reqs), retried, job.Stats())
}
