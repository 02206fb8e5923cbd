package pubsubq

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/queue"
)

func msg(i, total int) queue.ShardMessage {
	return queue.ShardMessage{
		RunID: "gs://m/run.parquet#17", Shard: i, Total: total, Manifest: "gs://m/run.parquet",
		Format: "contacts-and-distances-v2", Output: fmt.Sprintf("gs://out/p-%05d-of-%05d.parquet", i, total),
		Columns: []string{"entry_id", "gcs_uri"},
	}
}

// setup returns a pstest server with topic "shards", a client, and a
// counter of Publish RPCs.
func setup(t *testing.T) (*pstest.Server, *pubsub.Client, *atomic.Int32) {
	t.Helper()
	srv := pstest.NewServer()
	t.Cleanup(func() { srv.Close() })
	var rpcs atomic.Int32
	count := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, inv grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if strings.HasSuffix(method, "/Publish") {
			rpcs.Add(1)
		}
		return inv(ctx, method, req, reply, cc, opts...)
	}
	c, err := pubsub.NewClient(context.Background(), "p",
		option.WithEndpoint(srv.Addr), option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
		option.WithGRPCDialOption(grpc.WithUnaryInterceptor(count)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.TopicAdminClient.CreateTopic(context.Background(), &pubsubpb.Topic{Name: "projects/p/topics/shards"}); err != nil {
		t.Fatal(err)
	}
	return srv, c, &rpcs
}

func TestPublishAllBatches(t *testing.T) {
	srv, c, rpcs := setup(t)
	p := New(c, "shards")
	defer p.Stop()
	const n = 250
	var msgs []queue.ShardMessage
	for i := range n {
		msgs = append(msgs, msg(i, n))
	}
	if err := p.PublishAll(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	got := srv.Messages()
	if len(got) != n {
		t.Fatalf("published %d messages, want %d", len(got), n)
	}
	seen := map[int]bool{}
	for _, m := range got {
		d, err := Decode(m.Data, m.Attributes)
		if err != nil {
			t.Fatal(err)
		}
		if m.Attributes[AttrRun] != d.RunID || m.Attributes[AttrShard] != fmt.Sprint(d.Shard) || d.Output != msgs[d.Shard].Output {
			t.Errorf("message %+v attrs %v", d, m.Attributes)
		}
		seen[d.Shard] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct shards, want %d", len(seen), n)
	}
	if r := rpcs.Load(); r < 3 || r > 25 {
		t.Errorf("%d Publish RPCs for %d messages, want batches of up to 100", r, n)
	}
	t.Logf("%d messages in %d Publish RPCs", n, rpcs.Load())
}

func TestPublishErrors(t *testing.T) {
	_, c, _ := setup(t)
	ctx := context.Background()
	p := New(c, "shards")
	defer p.Stop()
	if err := p.Publish(ctx, msg(0, 1)); err != nil {
		t.Errorf("Publish = %v", err)
	}
	bad := msg(0, 1)
	bad.Shard = 1
	if err := p.Publish(ctx, bad); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("Publish(shard out of range) = %v, want ErrPermanent", err)
	}
	missing := New(c, "no-such-topic")
	defer missing.Stop()
	if err := missing.Publish(ctx, msg(0, 1)); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("Publish(missing topic) = %v, want ErrPermanent", err)
	}
}

func TestDecode(t *testing.T) {
	good := `{"run_id":"r#1","shard":2,"total":3,"manifest":"gs://m/a.parquet","format":"f","output":"gs://o/p","columns":["entry_id"]}`
	for _, tc := range []struct {
		name  string
		data  string
		attrs map[string]string
		ok    bool
	}{
		{"good with attributes", good, map[string]string{"run": "r#1", "shard": "2"}, true},
		{"good without attributes", good, nil, true},
		{"run attribute disagrees", good, map[string]string{"run": "r#2", "shard": "2"}, false},
		{"shard attribute disagrees", good, map[string]string{"run": "r#1", "shard": "1"}, false},
		{"unknown field", strings.Replace(good, `"shard"`, `"path":"/etc","shard"`, 1), nil, false},
		{"trailing data", good + `{}`, nil, false},
		{"not json", `hello`, nil, false},
		{"shard >= total", strings.Replace(good, `"total":3`, `"total":2`, 1), nil, false},
		{"no columns", strings.Replace(good, `["entry_id"]`, `[]`, 1), nil, false},
		{"no run id", strings.Replace(good, `"r#1"`, `""`, 1), nil, false},
		{"oversized", `{"run_id":"` + strings.Repeat("x", MaxMessageBytes) + `"}`, nil, false},
		{"manifest generation", strings.Replace(good, `"format"`, `"manifest_generation":1700000000000001,"format"`, 1), nil, true},
		{"negative manifest generation", strings.Replace(good, `"format"`, `"manifest_generation":-1,"format"`, 1), nil, false},
	} {
		got, err := Decode([]byte(tc.data), tc.attrs)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, derrors.ErrPermanent)) {
			t.Errorf("%s: Decode = %+v, %v; want ok=%v (errors permanent)", tc.name, got, err, tc.ok)
		}
	}
}

// TestManifestGenerationWire: the generation survives Encode/Decode and is
// absent from the body when zero (older receivers accept the message).
func TestManifestGenerationWire(t *testing.T) {
	for _, gen := range []int64{0, 1700000000000001} {
		m := msg(0, 1)
		m.ManifestGeneration = gen
		pm, err := Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(string(pm.Data), "manifest_generation"); has != (gen != 0) {
			t.Errorf("generation %d: body %s", gen, pm.Data)
		}
		got, err := Decode(pm.Data, pm.Attributes)
		if err != nil || got.ManifestGeneration != gen {
			t.Errorf("generation %d: decoded %d, %v", gen, got.ManifestGeneration, err)
		}
	}
}
