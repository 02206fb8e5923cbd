package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
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
	// Overlapping counts the deliveries of a message that started while an
	// earlier delivery of it was still in flight (its ack deadline passed).
	Overlapping atomic.Int64
}

func startPushRelay(ctx context.Context, ps *pubsub.Client, sub, endpoint string) *pushRelay {
	ctx, cancel := context.WithCancel(ctx)
	r := &pushRelay{cancel: cancel, active: map[string]int{}}
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
				time.Sleep(50 * time.Millisecond)
				continue
			}
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
					r.mu.Unlock()
					relayOne(ctx, ps, client, sub, endpoint, m)
					r.mu.Lock()
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

func (r *pushRelay) stop() {
	r.cancel()
	r.wg.Wait()
}

func relayOne(ctx context.Context, ps *pubsub.Client, client *http.Client, sub, endpoint string, m *pubsubpb.ReceivedMessage) {
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
		return
	}
	if ok {
		ps.SubscriptionAdminClient.Acknowledge(ctx, &pubsubpb.AcknowledgeRequest{Subscription: sub, AckIds: []string{m.AckId}})
		return
	}
	ps.SubscriptionAdminClient.ModifyAckDeadline(ctx, &pubsubpb.ModifyAckDeadlineRequest{Subscription: sub, AckIds: []string{m.AckId}, AckDeadlineSeconds: 0})
}
