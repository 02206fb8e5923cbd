package emulators

import (
	"context"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TopicName is the full name of topic id in project.
func TopicName(project, id string) string { return "projects/" + project + "/topics/" + id }

// SubscriptionName is the full name of subscription id in project.
func SubscriptionName(project, id string) string {
	return "projects/" + project + "/subscriptions/" + id
}

// CreateTopics creates the topics ids of project (on the emulator c talks
// to).
func CreateTopics(ctx context.Context, c *pubsub.Client, project string, ids ...string) error {
	for _, id := range ids {
		if _, err := c.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: TopicName(project, id)}); err != nil {
			return err
		}
	}
	return nil
}

// Subscription is a subscription for Subscribe to create.
type Subscription struct {
	ID    string
	Topic string // topic id
	// Endpoint is the push endpoint; empty makes a pull subscription.
	Endpoint string
	// AckDeadline is the ack deadline (60 s when zero).
	AckDeadline time.Duration
	// DeadLetter, if set, dead-letters after MaxDeliveryAttempts.
	DeadLetter *pubsubpb.DeadLetterPolicy
}

// Subscribe creates s in project. Redeliveries back off 1 to 2 seconds (the
// emulator honours a subscription's retry policy), not the deployed
// subscriptions' minutes, so that tests of retries finish.
func Subscribe(ctx context.Context, c *pubsub.Client, project string, s Subscription) error {
	ack := s.AckDeadline
	if ack == 0 {
		ack = time.Minute
	}
	sub := &pubsubpb.Subscription{Name: SubscriptionName(project, s.ID), Topic: TopicName(project, s.Topic),
		AckDeadlineSeconds: int32(ack / time.Second), DeadLetterPolicy: s.DeadLetter,
		RetryPolicy: &pubsubpb.RetryPolicy{MinimumBackoff: durationpb.New(time.Second), MaximumBackoff: durationpb.New(2 * time.Second)}}
	if s.Endpoint != "" {
		sub.PushConfig = &pubsubpb.PushConfig{PushEndpoint: s.Endpoint}
	}
	_, err := c.SubscriptionAdminClient.CreateSubscription(ctx, sub)
	return err
}
