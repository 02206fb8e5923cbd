package emulatortests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// capacityProxy stands for Cloud Run in front of a function at
// max_instance_count: it admits cap concurrent requests and answers 429
// to the others at once (Cloud Run first holds them up to 30 s; answering
// at once is the harsher case). It counts the refusals of each message.
type capacityProxy struct {
	srv  *httptest.Server
	sem  chan struct{}
	mu   sync.Mutex
	refs map[string]int // message id -> 429s
	peak int
	busy int
}

func newCapacityProxy(t *testing.T, target string, capacity int) *capacityProxy {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &capacityProxy{sem: make(chan struct{}, capacity), refs: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		select {
		case p.sem <- struct{}{}:
			p.mu.Lock()
			p.busy++
			p.peak = max(p.peak, p.busy)
			p.mu.Unlock()
			defer func() {
				p.mu.Lock()
				p.busy--
				p.mu.Unlock()
				<-p.sem
			}()
			rp.ServeHTTP(w, r)
		default:
			var push struct {
				Message struct {
					ID string `json:"messageId"`
				} `json:"message"`
			}
			json.Unmarshal(body, &push)
			p.mu.Lock()
			p.refs[push.Message.ID]++
			p.mu.Unlock()
			http.Error(w, "Rate exceeded.", http.StatusTooManyRequests)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// refusals returns the total 429s, the most any one message got, and the
// peak number of requests admitted at once.
func (p *capacityProxy) refusals() (total, most, peak int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range p.refs {
		total += n
		most = max(most, n)
	}
	return total, most, p.peak
}

// shardMaxDeliveryAttempts reads the shard subscription's dead-letter limit
// from the Terraform (the default of variable shard_max_delivery_attempts in
// infra/variables.tf, which infra/pubsub.tf's shard subscription uses), so
// this test runs with the deployed value.
func shardMaxDeliveryAttempts(t *testing.T) int32 {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "infra", "variables.tf"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)variable "shard_max_delivery_attempts" \{[^}]*?\bdefault\s*=\s*(\d+)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("infra/variables.tf: no default for variable shard_max_delivery_attempts")
	}
	n, _ := strconv.Atoi(string(m[1]))
	return int32(n)
}

// startPushRelay delivers the emulator's pull subscription subID to an HTTP
// endpoint the way Pub/Sub push does at scale: many requests in flight at
// once (up to 64), each the standard push body; a 2xx answer acknowledges
// the message, anything else nacks it (ModifyAckDeadline 0). Delivery
// attempts, the retry backoff and dead-lettering stay the emulator's. The
// emulator's own push loop cannot stand in here: it sends one message at a
// time (two at most were seen in flight), and after a few refused pushes of
// a message it did not push it again for over 5 minutes (the loop answers a
// failed push with ModifyAckDeadline(1000)), so it never overloads an
// endpoint the way a 12,000-message backlog does.
func startPushRelay(t *testing.T, s *stack, subID, endpoint string) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	sem := make(chan struct{}, 64)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			pctx, done := context.WithTimeout(ctx, 2*time.Second)
			resp, err := s.ps.SubscriptionAdminClient.Pull(pctx, &pubsubpb.PullRequest{Subscription: s.sub(subID), MaxMessages: 64})
			done()
			if err != nil || len(resp.ReceivedMessages) == 0 {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			for _, m := range resp.ReceivedMessages {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					relayOne(ctx, s, subID, endpoint, m)
				}()
			}
		}
	}()
}

func relayOne(ctx context.Context, s *stack, subID, endpoint string, m *pubsubpb.ReceivedMessage) {
	body, _ := json.Marshal(map[string]any{
		"message": map[string]any{"data": m.Message.Data, "attributes": m.Message.Attributes, "messageId": m.Message.MessageId,
			"publishTime": m.Message.PublishTime.AsTime().Format(time.RFC3339Nano)},
		"subscription": s.sub(subID), "deliveryAttempt": m.DeliveryAttempt,
	})
	ok := false
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ok = resp.StatusCode/100 == 2
	}
	if ctx.Err() != nil {
		return
	}
	if ok {
		s.ps.SubscriptionAdminClient.Acknowledge(ctx, &pubsubpb.AcknowledgeRequest{Subscription: s.sub(subID), AckIds: []string{m.AckId}})
		return
	}
	s.ps.SubscriptionAdminClient.ModifyAckDeadline(ctx, &pubsubpb.ModifyAckDeadlineRequest{Subscription: s.sub(subID), AckIds: []string{m.AckId}, AckDeadlineSeconds: 0})
}

// TestBackpressure: twenty times more shards than the shard function admits
// at once (1 request at a time, 429 beyond; each shard held ~1 s by a slow
// object read), pushed up to 64 at a time, with the shard subscription's
// dead-letter limit from infra/pubsub.tf. The emulator retries a nacked
// message after its retry backoff (the harness's 1 s .. 2 s, a compressed
// 10 s .. 600 s), so the shards at the back of the queue are refused more
// often than the old limit of 10 attempts allowed; every shard still ends
// done on its first real attempt, and none is dead-lettered.
// (infra/pubsub_test.go makes the same argument at the real time scale.)
func TestBackpressure(t *testing.T) {
	const capacity, shards = 1, 20
	attempts := shardMaxDeliveryAttempts(t)
	s := newStack(t, stackOpts{rowGroupsPerShard: 1, shardCapacity: capacity, maxAttempts: attempts})
	p := synth.Make(synth.SampleSeed, 0, 40, 90)
	s.put(dataBucket, "synth/slow.cif", p.CIF, "")
	s.proxy.set(func(w http.ResponseWriter, r *http.Request) bool {
		if isObjectGet(r, "synth/slow.cif") {
			time.Sleep(time.Second)
		}
		return false
	})
	rows := make([][]any, shards)
	for i := range rows {
		rows[i] = []any{fmt.Sprintf("BP-%03d", i), "gs://" + dataBucket + "/synth/slow.cif"}
	}
	runID := s.uploadManifest("runs/backpressure.parquet", rows, 1)
	got := s.waitSettled(runID, 3*time.Minute)
	total, most, peak := s.capacity.refusals()
	t.Logf("%d shards through %d slot(s): %d refusals (429), at most %d for one message, peak %d admitted at once; dead-letter limit %d",
		shards, capacity, total, most, peak, attempts)
	if peak > capacity {
		t.Errorf("the proxy admitted %d requests at once, want <= %d", peak, capacity)
	}
	// The test must exercise backpressure: a message refused more often than
	// the old limit of 10 attempts allowed.
	if most < 10 {
		t.Errorf("at most %d refusals of one message: the queue was too short to test the dead-letter limit", most)
	}
	for _, sh := range got {
		if sh.Status != ledger.Done || sh.Attempts != 1 {
			t.Errorf("shard %d: %s after %d attempts (%s), want done on its first real attempt", sh.Index, sh.Status, sh.Attempts, sh.Error)
		}
	}
	if n := len(s.fns["DeadLetter"].logRecords("shard dead-lettered")); n > 0 {
		t.Errorf("%d shards dead-lettered", n)
	}
}
