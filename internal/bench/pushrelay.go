package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
)

// pushRelay delivers a pull subscription to an HTTP endpoint the way
// Pub/Sub push does: up to 64 requests in flight, each the standard push
// body; a 2xx answer acknowledges the message, anything else nacks it.
// Delivery attempts, redelivery after the ack deadline, the retry backoff
// and dead-lettering stay the emulator's. The fault runs use it because
// the emulator's own push loop, after a few failed pushes of a message
// (the instance killed under them), does not push it again for over 5
// minutes (emulator-tests/backpressure_test.go saw the same).
type pushRelay struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	active map[string]int // message id -> deliveries in flight
	since  map[*pubsubpb.ReceivedMessage]time.Time
	// nacked holds the messages nacked and not delivered since, by id.
	nacked map[string]*pubsubpb.PubsubMessage
	idle   time.Time // when the last pull returned nothing, after one that did (zero: busy)
	// Overlapping counts the deliveries of a message that started while an
	// earlier delivery of it was still in flight (its ack deadline passed).
	Overlapping atomic.Int64
	// Lost counts the messages the emulator lost after a nack, published
	// again by the relay.
	Lost atomic.Int64
}

// lostAfterIdle is how long the subscription is idle before the relay
// takes a message it nacked and has not seen since for lost.
const lostAfterIdle = 10 * time.Second

func startPushRelay(ctx context.Context, ps *pubsub.Client, sub, topic, endpoint string) *pushRelay {
	ctx, cancel := context.WithCancel(ctx)
	r := &pushRelay{cancel: cancel, active: map[string]int{}, since: map[*pubsubpb.ReceivedMessage]time.Time{},
		nacked: map[string]*pubsubpb.PubsubMessage{}}
	sem := make(chan struct{}, 64)
	client := &http.Client{}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for ctx.Err() == nil {
			pctx, done := context.WithTimeout(ctx, 2*time.Second)
			resp, err := ps.SubscriptionAdminClient.Pull(pctx, &pubsubpb.PullRequest{Subscription: sub, MaxMessages: 64})
			done()
			if err != nil || len(resp.ReceivedMessages) == 0 {
				r.republishLost(ctx, ps, topic)
				time.Sleep(50 * time.Millisecond)
				continue
			}
			r.mu.Lock()
			r.idle = time.Time{}
			for _, m := range resp.ReceivedMessages {
				delete(r.nacked, m.Message.GetMessageId())
			}
			r.mu.Unlock()
			for _, m := range resp.ReceivedMessages {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				r.wg.Add(1)
				go func() {
					defer r.wg.Done()
					defer func() { <-sem }()
					id := m.Message.GetMessageId()
					r.mu.Lock()
					if r.active[id] > 0 {
						r.Overlapping.Add(1)
					}
					r.active[id]++
					r.since[m] = time.Now()
					r.mu.Unlock()
					ok := relayOne(ctx, ps, client, sub, endpoint, m)
					r.mu.Lock()
					delete(r.since, m)
					if !ok && ctx.Err() == nil {
						r.nacked[id] = m.Message
					}
					if r.active[id]--; r.active[id] == 0 {
						delete(r.active, id)
					}
					r.mu.Unlock()
				}()
			}
		}
	}()
	return r
}

// republishLost publishes again the messages nacked and not seen since,
// once the subscription has been idle for lostAfterIdle.
func (r *pushRelay) republishLost(ctx context.Context, ps *pubsub.Client, topic string) {
	r.mu.Lock()
	if r.idle.IsZero() || len(r.since) > 0 {
		r.idle = time.Now()
	}
	var lost []*pubsubpb.PubsubMessage
	if time.Since(r.idle) >= lostAfterIdle && len(r.nacked) > 0 {
		for id, m := range r.nacked {
			lost = append(lost, m)
			delete(r.nacked, id)
		}
	}
	r.mu.Unlock()
	if len(lost) == 0 {
		return
	}
	pub := ps.Publisher(topic)
	defer pub.Stop()
	for _, m := range lost {
		if _, err := pub.Publish(ctx, &pubsub.Message{Data: m.Data, Attributes: m.Attributes}).Get(ctx); err == nil {
			r.Lost.Add(1)
		}
	}
}

// inFlight describes the deliveries in flight, the oldest first (at most
// n of them): shard attribute, delivery attempt and age.
func (r *pushRelay) inFlight(n int) (count int, oldest []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	type fl struct {
		m   *pubsubpb.ReceivedMessage
		age time.Duration
	}
	var all []fl
	for m, t := range r.since {
		all = append(all, fl{m, time.Since(t)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].age > all[j].age })
	for _, f := range all[:min(n, len(all))] {
		oldest = append(oldest, fmt.Sprintf("shard %s attempt %d for %s", f.m.Message.Attributes["shard"], f.m.DeliveryAttempt, f.age.Round(time.Second)))
	}
	return len(all), oldest
}

func (r *pushRelay) stop() {
	r.cancel()
	r.wg.Wait()
}

// relayOne pushes m and acknowledges it on a 2xx answer, else nacks it; it
// reports whether it acknowledged.
func relayOne(ctx context.Context, ps *pubsub.Client, client *http.Client, sub, endpoint string, m *pubsubpb.ReceivedMessage) bool {
	body, err := json.Marshal(map[string]any{
		"message": map[string]any{"data": m.Message.Data, "attributes": m.Message.Attributes, "messageId": m.Message.MessageId,
			"publishTime": m.Message.PublishTime.AsTime().Format(time.RFC3339Nano)},
		"subscription": sub, "deliveryAttempt": m.DeliveryAttempt,
	})
	ok := false
	if err == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			if resp, err := client.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				ok = resp.StatusCode/100 == 2
			}
		}
	}
	if ctx.Err() != nil {
		return false
	}
	if ok {
		ps.SubscriptionAdminClient.Acknowledge(ctx, &pubsubpb.AcknowledgeRequest{Subscription: sub, AckIds: []string{m.AckId}})
		return true
	}
	ps.SubscriptionAdminClient.ModifyAckDeadline(ctx, &pubsubpb.ModifyAckDeadlineRequest{Subscription: sub, AckIds: []string{m.AckId}, AckDeadlineSeconds: 0})
	return false
}
