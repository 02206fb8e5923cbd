package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/firestoreledger"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// Cloud runs the whole cloud flow on the emulators (the official Firestore
// and Pub/Sub emulators, fake-gcs-server) with the deployed function binary
// (the buildpack's main) serving Planner, ShardFn and DeadLetter, the
// emulator pushing to them: a manifest of --shards shards x --rows rows
// lands in the bucket, and the run is timed until every shard is done. It
// prints shards/s end to end, the planner's publish rate, lost and
// duplicated rows (read back from the outputs; both must be 0) and the
// functions' peak memory, and fails when a row is lost or duplicated.
func Cloud(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench cloud", flag.ContinueOnError)
	shards := fs.Int("shards", 20, "shards in the run (the real runs: 2,000 to 12,005)")
	rows := fs.Int("rows", 20, "rows per shard (synthetic structures)")
	src := fs.String("source", ".", "the module to build the function binary from")
	timeout := fs.Duration("timeout", time.Hour, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *shards < 1 || *rows < 1 {
		return errors.New("bench cloud: --shards and --rows must be >= 1")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "foldcorpus-bench-cloud-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Println("building the function binary ...")
	bin, err := buildFunction(ctx, *src, filepath.Join(dir, "app"), nil)
	if err != nil {
		return err
	}
	for _, k := range []emulators.Kind{emulators.Firestore, emulators.PubSub} {
		e, err := emulators.Start(ctx, k)
		if err != nil {
			return err
		}
		defer e.Stop()
		os.Setenv(k.HostEnv(), e.Host)
	}
	const project, events, shardTopic, dead = "bench-cloud", "gcs-events", "shards", "shards-dead"
	ps, err := pubsub.NewClient(ctx, project)
	if err != nil {
		return err
	}
	defer ps.Close()
	if err := emulators.CreateTopics(ctx, ps, project, events, shardTopic, dead); err != nil {
		return err
	}
	f, err := emulators.StartFakeGCS(emulators.FakeGCSOptions{Buckets: []string{"manifests", "structures", "out"},
		Events: fakestorage.EventManagerOptions{ProjectID: project, TopicName: events, Bucket: "manifests",
			NotifyOn: fakestorage.EventNotificationOptions{Finalize: true}}})
	if err != nil {
		return err
	}
	defer f.Stop()
	sc, err := emulators.StorageClient(ctx, f.URL)
	if err != nil {
		return err
	}
	defer sc.Close()
	fc, err := firestore.NewClient(ctx, project)
	if err != nil {
		return err
	}
	defer fc.Close()
	led := firestoreledger.New(fc, firestoreledger.Options{})

	env := append(os.Environ(), "FOLDCORPUS_PROJECT="+project, "GOOGLE_CLOUD_PROJECT="+project, "FOLDCORPUS_REGION=us-central1",
		"FOLDCORPUS_INPUT_BUCKETS=manifests,structures", "FOLDCORPUS_OUTPUT_PREFIX=gs://out/corpus", "FOLDCORPUS_SHARD_TOPIC="+shardTopic,
		"FOLDCORPUS_ROW_GROUPS_PER_SHARD=1", "FOLDCORPUS_FETCH_CONCURRENCY=20", "STORAGE_EMULATOR_HOST="+strings.TrimPrefix(f.URL, "http://"))
	procs := map[string]*emulators.Function{}
	logs := map[string]*emulators.LogBuffer{}
	for _, target := range []string{"Planner", "ShardFn", "DeadLetter"} {
		logs[target] = &emulators.LogBuffer{}
		p, err := emulators.StartFunction(ctx, bin, env, target, 0, logs[target])
		if err != nil {
			return fmt.Errorf("%w\n%s", err, logs[target])
		}
		defer p.Stop()
		procs[target] = p
	}
	for _, s := range []struct{ id, topic, fn string }{{"planner-push", events, "Planner"}, {"shards-push", shardTopic, "ShardFn"}, {"dead-push", dead, "DeadLetter"}} {
		sub := emulators.Subscription{ID: s.id, Topic: s.topic, Endpoint: procs[s.fn].PushURL(project, s.topic), AckDeadline: 10 * time.Minute}
		if s.topic == shardTopic {
			sub.DeadLetter = &pubsubpb.DeadLetterPolicy{DeadLetterTopic: emulators.TopicName(project, dead), MaxDeliveryAttempts: 100}
		}
		if err := emulators.Subscribe(ctx, ps, project, sub); err != nil {
			return err
		}
	}

	// The data: --rows distinct structures, each row of a shard pointing
	// to one of them; one row group per shard.
	var uris []string
	for i := range *rows {
		p := synth.Make(synth.SampleSeed, i, 40, 90)
		name := "synth/" + p.EntryID + ".cif"
		if err := put(ctx, sc, "structures", name, p.CIF); err != nil {
			return err
		}
		uris = append(uris, "gs://structures/"+name)
	}
	n := *shards * *rows
	mrows := make([][]any, 0, n)
	for r := range n {
		mrows = append(mrows, []any{fmt.Sprintf("BENCH-%08d", r), uris[r%*rows]})
	}
	data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, mrows, *rows)
	if err != nil {
		return err
	}
	fmt.Printf("%d shards x %d rows: uploading the manifest (%d bytes) ...\n", *shards, *rows, len(data))
	start := time.Now()
	w := sc.Bucket("manifests").Object("runs/bench.parquet").NewWriter(ctx)
	if _, err := w.Write(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	runID := fmt.Sprintf("gs://manifests/runs/bench.parquet#%d", w.Attrs().Generation)

	var counts map[ledger.Status]int64
	for last := time.Now(); ; time.Sleep(500 * time.Millisecond) {
		if ctx.Err() != nil {
			return fmt.Errorf("bench cloud: not done after %s: %v", *timeout, counts)
		}
		if counts, err = led.Progress(ctx, runID); err != nil {
			continue // the run document is not there yet
		}
		if counts[ledger.Done]+counts[ledger.Failed]+counts[ledger.DeadLettered] == int64(*shards) {
			break
		}
		if time.Since(last) > 30*time.Second {
			last = time.Now()
			fmt.Printf("  %s: %v\n", time.Since(start).Round(time.Second), counts)
		}
	}
	wall := time.Since(start)
	peak := map[string]string{}
	for name, p := range procs {
		peak[name] = p.PeakRSS()
	}

	shardList, err := led.Shards(ctx, runID)
	if err != nil {
		return err
	}
	store := gcs.New(sc, gcs.Options{})
	seen := make(map[string]int, n)
	attempts := map[int]int{}
	for _, sh := range shardList {
		attempts[sh.Attempts]++
		if sh.Status != ledger.Done {
			continue
		}
		err := corpus.Read(ctx, store, sh.Output, []string{"entry_id"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				seen[v[0].(string)]++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	dup := 0
	for _, c := range seen {
		dup += c - 1
	}
	lost := n - len(seen)
	var plan struct {
		Published float64 `json:"published"`
		PublishMS float64 `json:"publish_ms"`
		RecordMS  float64 `json:"record_ms"`
	}
	for _, line := range strings.Split(logs["Planner"].String(), "\n") {
		if strings.Contains(line, `"message":"run planned"`) {
			json.Unmarshal([]byte(line), &plan)
		}
	}
	fmt.Printf("shards        %d (%d done, %d failed, %d dead-lettered); attempts histogram %v\n", *shards, counts[ledger.Done], counts[ledger.Failed], counts[ledger.DeadLettered], attempts)
	fmt.Printf("end to end    %.1f shards/s (%s from the manifest upload to the last shard done)\n", float64(*shards)/wall.Seconds(), wall.Round(time.Millisecond))
	fmt.Printf("planner       published %.0f messages in %.0f ms (%.0f msgs/s); recorded the run and its shards in Firestore in %.0f ms\n",
		plan.Published, plan.PublishMS, plan.Published/(max(plan.PublishMS, 1)/1000), plan.RecordMS)
	fmt.Printf("rows          %d in, %d lost, %d duplicated\n", n, lost, dup)
	fmt.Printf("peak memory   Planner %s, ShardFn %s, DeadLetter %s (VmHWM)\n", peak["Planner"], peak["ShardFn"], peak["DeadLetter"])
	if lost != 0 || dup != 0 || counts[ledger.Done] != int64(*shards) {
		return fmt.Errorf("bench cloud: %d rows lost, %d duplicated, %d of %d shards done", lost, dup, counts[ledger.Done], *shards)
	}
	return nil
}

func put(ctx context.Context, sc *storage.Client, bucket, name string, data []byte) error {
	w := sc.Bucket(bucket).Object(name).NewWriter(ctx)
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Close()
}
