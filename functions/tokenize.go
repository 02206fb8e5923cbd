package functions

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/pubsub/v2"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// TokenizePublisher sends tokenize requests (shards of a neural format,
// staged for the accelerator job) to FOLDCORPUS_TOKENIZE_TOPIC.
type TokenizePublisher interface {
	// Publish returns once the topic accepted req.
	Publish(ctx context.Context, req tokenize.Request) error
}

// PubSubTokenize is the Pub/Sub TokenizePublisher.
type PubSubTokenize struct{ p *pubsub.Publisher }

// NewPubSubTokenize publishes to topic (an id of client's project).
func NewPubSubTokenize(client *pubsub.Client, topic string) *PubSubTokenize {
	return &PubSubTokenize{p: client.Publisher(topic)}
}

// Publish sends req as JSON with the attributes run and shard and waits for
// the server's ack. An invalid request is a permanent error; a publish
// failure is transient (a redelivered shard message publishes again).
func (t *PubSubTokenize) Publish(ctx context.Context, req tokenize.Request) error {
	data, attrs, err := req.Message()
	if err != nil {
		return derrors.Permanent(err)
	}
	if _, err := t.p.Publish(ctx, &pubsub.Message{Data: data, Attributes: attrs}).Get(ctx); err != nil {
		return derrors.Transient(fmt.Errorf("publishing tokenize request for shard %d of %s: %w", req.Shard, req.RunID, err))
	}
	return nil
}

// Stop flushes and stops the publisher.
func (t *PubSubTokenize) Stop() { t.p.Stop() }

// handoff is the shard function's hand-off of neural formats to the
// accelerator job: nil (neural formats run inline in the function) unless
// a tokenize publisher is configured (FOLDCORPUS_TOKENIZE_TOPIC).
func (s *Server) handoff() *shardfn.Handoff {
	if s.deps.Tokenize == nil {
		return nil
	}
	return &shardfn.Handoff{StagedURI: s.stagedURI, Publish: s.deps.Tokenize.Publish}
}

// stagedURI maps a shard's output (under FOLDCORPUS_OUTPUT_PREFIX) to its
// staged object under the staging prefix: OUTPUT_PREFIX/REST.parquet ->
// STAGING_PREFIX/REST.staged.json.gz.
func (s *Server) stagedURI(msg queue.ShardMessage) (string, error) {
	rest, ok := strings.CutPrefix(msg.Output, s.cfg.OutputPrefix+"/")
	if !ok {
		return "", fmt.Errorf("output %q is not under %s/", msg.Output, s.cfg.OutputPrefix)
	}
	return s.cfg.Staging() + "/" + strings.TrimSuffix(rest, ".parquet") + ".staged.json.gz", nil
}
