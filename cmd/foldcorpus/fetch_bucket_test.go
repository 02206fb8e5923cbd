package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/cloudevents/sdk-go/v2/event"
	"google.golang.org/api/iterator"

	"github.com/foldcorpus/foldcorpus/functions"
	"github.com/foldcorpus/foldcorpus/internal/cloudlog"
	"github.com/foldcorpus/foldcorpus/internal/config"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/queue"
)

type shardRecorder struct {
	mu   sync.Mutex
	msgs []queue.ShardMessage
}

func (r *shardRecorder) Publish(ctx context.Context, m queue.ShardMessage) error {
	return r.PublishAll(ctx, []queue.ShardMessage{m})
}

func (r *shardRecorder) PublishAll(_ context.Context, msgs []queue.ShardMessage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msgs...)
	return nil
}

// TestFetchManifestToBucket fetches into gs:// (fake-gcs-server, TCP) and
// then hands every object of the bucket, in the order the bucket finalized
// them, to the deployed Planner function as its finalize event (what
// Eventarc does): the run spec is the last object written, and it starts
// the one run; the projected files (trigger_parquet = false) and the lock
// start nothing. The run plans one shard per fetched file.
func TestFetchManifestToBucket(t *testing.T) {
	ctx := context.Background()
	fake, client := emulators.RequireFakeGCS(t, "manifests", "out")
	t.Setenv("STORAGE_EMULATOR_HOST", fake.URL)
	srv, hub := hubWithStructures(t, t.TempDir(), 3, 8, hubtest.Options{})
	t.Setenv("HF_ENDPOINT", srv.URL())
	t.Setenv("HF_TOKEN", "")
	if err := runFetchManifest(ctx, []string{"hf://datasets/timodonnell/afdb-e2e", "--out", "gs://manifests/afdb", "--concurrency", "2"}); err != nil {
		t.Fatal(err)
	}

	type obj struct {
		name string
		gen  int64
		at   time.Time
	}
	var objs []obj
	it := client.Bucket("manifests").Objects(ctx, &storage.Query{})
	for {
		a, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, obj{a.Name, a.Generation, a.Created})
	}
	sort.Slice(objs, func(i, j int) bool {
		if !objs[i].at.Equal(objs[j].at) {
			return objs[i].at.Before(objs[j].at)
		}
		return objs[i].gen < objs[j].gen
	})
	if len(objs) != len(hub)+2 || objs[len(objs)-1].name != "afdb/manifest.run.json" {
		t.Fatalf("bucket objects in finalize order %v; want the %d files, the lock, and afdb/manifest.run.json last", objs, len(hub))
	}

	env := map[string]string{"FOLDCORPUS_PROJECT": "p", "FOLDCORPUS_REGION": "us-central1", "FOLDCORPUS_INPUT_BUCKETS": "manifests",
		"FOLDCORPUS_OUTPUT_PREFIX": "gs://out/corpus", "FOLDCORPUS_SHARD_TOPIC": "shards", "FOLDCORPUS_TRIGGER_PARQUET": "false"}
	cfg, err := functions.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(config.Functions); err != nil {
		t.Fatal(err)
	}
	led, err := localledger.Open(filepath.Join(t.TempDir(), "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	pub := &shardRecorder{}
	s := functions.New(cfg, functions.Deps{Store: gcs.New(client, gcs.Options{AllowedBuckets: cfg.Buckets()}), Ledger: led, Publisher: pub,
		Log: cloudlog.New(&testWriter{t}, slog.LevelInfo, "p")})
	for _, o := range objs {
		e := event.New()
		e.SetID("ev-" + o.name)
		e.SetType(functions.StorageFinalized)
		e.SetSource("//storage.googleapis.com/projects/_/buckets/manifests")
		e.SetTime(time.Now())
		if err := e.SetData(event.ApplicationJSON, map[string]any{"bucket": "manifests", "name": o.name,
			"generation": json.Number(strconv.FormatInt(o.gen, 10)), "size": "1"}); err != nil {
			t.Fatal(err)
		}
		if err := s.Planner(ctx, e); err != nil {
			t.Fatalf("Planner(%s) = %v", o.name, err)
		}
	}
	runs := led.Runs()
	if len(runs) != 1 || runs[0].Manifest != "gs://manifests/afdb/data/*.parquet" || runs[0].Shards != len(hub) || len(pub.msgs) != len(hub) {
		t.Fatalf("runs %+v, %d shard messages; want one run of gs://manifests/afdb/data/*.parquet with %d shards published", runs, len(pub.msgs), len(hub))
	}
	if _, err := client.Bucket("manifests").Object("afdb/" + hf.LockName).Attrs(ctx); err != nil {
		t.Errorf("lock: %v", err)
	}
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
