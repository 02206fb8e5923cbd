package emulatortests

import (
	"context"
	"fmt"
	"testing"

	"cloud.google.com/go/pubsub/v2"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/pubsubq"
	"github.com/foldcorpus/foldcorpus/internal/queue"
)

// BenchmarkPublish1000 publishes 1,000 shard messages to the Pub/Sub
// emulator one at a time (each Publish waits for its message: what a
// planner loop over Publish did) and as one batch (PublishAll, what
// planner.Publish does).
//
//	go test ./emulator-tests -run '^$' -bench Publish1000 -count 5
func BenchmarkPublish1000(b *testing.B) {
	ctx := context.Background()
	project := fmt.Sprintf("bench-%d", projectSeq.Add(1))
	c, err := pubsub.NewClient(ctx, project)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := emulators.CreateTopics(ctx, c, project, shardTopic); err != nil {
		b.Fatal(err)
	}
	p := pubsubq.New(c, shardTopic)
	defer p.Stop()
	msgs := make([]queue.ShardMessage, 1000)
	for i := range msgs {
		msgs[i] = queue.ShardMessage{RunID: "gs://m/run.parquet#1", Shard: i, Total: len(msgs), Manifest: "gs://m/run.parquet",
			RowGroups: []int{i}, Format: "contacts-and-distances-v2", Output: fmt.Sprintf("gs://o/c/part-%05d-of-01000.parquet", i),
			Columns: []string{"entry_id", "gcs_uri"}, URIColumn: "gcs_uri"}
	}
	b.Run("one-at-a-time", func(b *testing.B) {
		for b.Loop() {
			for _, m := range msgs {
				if err := p.Publish(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("batched", func(b *testing.B) {
		for b.Loop() {
			if err := p.PublishAll(ctx, msgs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
