package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
)

// TestEmulatorLosesNacked pushes 12,005 messages through pushRelay on the
// Pub/Sub emulator to an endpoint that answers 503 to 10% of deliveries
// and takes 12 s (past the 10 s ack deadline) on 2%, with no foldcorpus
// code in the loop: the emulator never delivers again about 1% of the
// messages nacked while the backlog lasts (reproduced with ack-deadline
// expiry instead of nacks, and with streaming pull), and the relay
// publishes them again once the subscription is idle. Every message must
// be answered 2xx in the end. About two minutes: run with
// FOLDCORPUS_LONG=1 (TestCloudFaultsSmall runs the relay in CI).
func TestEmulatorLosesNacked(t *testing.T) {
	if os.Getenv("FOLDCORPUS_LONG") == "" {
		t.Skip("SKIP: about two minutes on the Pub/Sub emulator; set FOLDCORPUS_LONG=1")
	}
	ctx := context.Background()
	e, err := emulators.Start(ctx, emulators.PubSub)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	t.Setenv(emulators.PubSub.HostEnv(), e.Host)
	ps, err := pubsub.NewClient(ctx, "relay-x")
	if err != nil {
		t.Fatal(err)
	}
	if err := emulators.CreateTopics(ctx, ps, "relay-x", "shards", "dead"); err != nil {
		t.Fatal(err)
	}
	sub := emulators.Subscription{ID: "shards-sub", Topic: "shards", AckDeadline: 10 * time.Second,
		DeadLetter: &pubsubpb.DeadLetterPolicy{DeadLetterTopic: emulators.TopicName("relay-x", "dead"), MaxDeliveryAttempts: 100}}
	if err := emulators.Subscribe(ctx, ps, "relay-x", sub); err != nil {
		t.Fatal(err)
	}
	if err := emulators.Subscribe(ctx, ps, "relay-x", emulators.Subscription{ID: "dead-sub", Topic: "dead", AckDeadline: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	done := map[string]bool{}
	tries := map[string][]string{}
	dead := map[string]int{}
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := decodePush(body)
		shard := m.Message.Attributes["shard"]
		mu.Lock()
		u := rng.Float64()
		mu.Unlock()
		fail := u < 0.1
		d := time.Duration(20+rand.IntN(200)) * time.Millisecond
		if u > 0.98 {
			d = 12 * time.Second
		}
		time.Sleep(d)
		mu.Lock()
		defer mu.Unlock()
		tries[shard] = append(tries[shard], fmt.Sprintf("%d:%v@%.0fs", m.DeliveryAttempt, !fail, time.Since(t0).Seconds()))
		if fail {
			w.WriteHeader(503)
			return
		}
		done[shard] = true
	}))
	defer srv.Close()
	deadSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, _ := decodePush(body)
		mu.Lock()
		dead[m.Message.Attributes["shard"]]++
		mu.Unlock()
	}))
	defer deadSrv.Close()
	n := 12005
	pub := ps.Publisher("shards")
	for i := range n {
		pub.Publish(ctx, &pubsub.Message{Data: []byte("x"), Attributes: map[string]string{"shard": fmt.Sprint(i)}})
	}
	pub.Flush()
	r := startPushRelay(ctx, ps, emulators.SubscriptionName("relay-x", "shards-sub"), "shards", srv.URL)
	defer r.stop()
	rd := startPushRelay(ctx, ps, emulators.SubscriptionName("relay-x", "dead-sub"), "dead", deadSrv.URL)
	defer rd.stop()
	start := time.Now()
	last, lastT := 0, time.Now()
	for time.Since(lastT) < 60*time.Second {
		time.Sleep(time.Second)
		mu.Lock()
		c := len(done)
		mu.Unlock()
		if c == n {
			break
		}
		if c != last {
			last, lastT = c, time.Now()
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(done) != n {
		t.Errorf("%d of %d messages answered 2xx", len(done), n)
	}
	t.Logf("%d of %d done in %s; dead-lettered %d; lost by the emulator and published again %d", len(done), n, time.Since(start).Round(time.Second), len(dead), r.Lost.Load())
	k := 0
	for i := range n {
		s := fmt.Sprint(i)
		if !done[s] && k < 20 {
			k++
			t.Logf("shard %s not done: tries %v dead %d", s, tries[s], dead[s])
		}
	}
}
