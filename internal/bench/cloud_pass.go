package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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

// Topic and subscription names of a cloud bench pass (each pass has its
// own project on the shared emulators).
const (
	cloudEvents, cloudShardTopic, cloudDead = "gcs-events", "shards", "shards-dead"
	cloudManifest                           = "runs/bench.parquet"
)

// cloudPass is one run of the cloud flow: its own project on the shared
// Firestore and Pub/Sub emulators, its own fake-gcs-server, its own
// function processes.
type cloudPass struct {
	project      string
	bin          string
	shards, rows int
	timeout      time.Duration
	// faults, when set, puts the fault injectors between the functions and
	// the emulators and in front of the functions' push endpoints.
	faults *faultPlan
	// relay pushes the subscriptions with pushRelay instead of the
	// emulator's own push loop.
	relay bool
}

// passResult is what a pass measured and left behind.
type passResult struct {
	wall    time.Duration
	start   time.Time // the manifest upload
	counts  map[ledger.Status]int64
	shards  []ledger.Shard
	peak    map[string]string
	plan    planStats
	lost    int
	dup     int
	rows    int
	docs    map[string]string // entry_id -> sha1 of the document's bytes
	stopAll func()
	// shardRelay pushes the shard subscription (nil without relay).
	shardRelay *pushRelay
	// injected is the fault pass's injector (nil fault-free).
	injected *injector
	store    *gcs.Store
	runID    string
	out      string // the run's output folder
	gen      int64
}

type planStats struct {
	Published float64 `json:"published"`
	PublishMS float64 `json:"publish_ms"`
	RecordMS  float64 `json:"record_ms"`
}

// run runs the pass until every shard is done (or failed or dead-lettered)
// and reads the outputs back. The caller calls res.stopAll when it is done
// with res.store.
func (p cloudPass) run(ctx context.Context) (res *passResult, err error) {
	var stops []func()
	res = &passResult{stopAll: func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}}
	defer func() {
		if err != nil {
			res.stopAll()
		}
	}()
	ps, err := pubsub.NewClient(ctx, p.project)
	if err != nil {
		return res, err
	}
	stops = append(stops, func() { ps.Close() })
	if err := emulators.CreateTopics(ctx, ps, p.project, cloudEvents, cloudShardTopic, cloudDead); err != nil {
		return res, err
	}
	f, err := emulators.StartFakeGCS(emulators.FakeGCSOptions{Buckets: []string{"manifests", "structures", "out"},
		Events: fakestorage.EventManagerOptions{ProjectID: p.project, TopicName: cloudEvents, Bucket: "manifests",
			NotifyOn: fakestorage.EventNotificationOptions{Finalize: true}}})
	if err != nil {
		return res, err
	}
	stops = append(stops, f.Stop)
	sc, err := emulators.StorageClient(ctx, f.URL)
	if err != nil {
		return res, err
	}
	stops = append(stops, func() { sc.Close() })
	fc, err := firestore.NewClient(ctx, p.project)
	if err != nil {
		return res, err
	}
	stops = append(stops, func() { fc.Close() })
	led := firestoreledger.New(fc, firestoreledger.Options{})

	storageHost := strings.TrimPrefix(f.URL, "http://")
	env := append(os.Environ(), "FOLDCORPUS_PROJECT="+p.project, "GOOGLE_CLOUD_PROJECT="+p.project, "FOLDCORPUS_REGION=us-central1",
		"FOLDCORPUS_INPUT_BUCKETS=manifests,structures", "FOLDCORPUS_OUTPUT_PREFIX=gs://out/corpus", "FOLDCORPUS_SHARD_TOPIC="+cloudShardTopic,
		"FOLDCORPUS_ROW_GROUPS_PER_SHARD=1", "FOLDCORPUS_FETCH_CONCURRENCY=20")
	endpoints := map[string]string{}
	var inj *injector
	if p.faults != nil {
		inj, err = startInjector(ctx, p, env, f.URL, ps)
		if err != nil {
			return res, err
		}
		stops = append(stops, inj.stop)
		for t, u := range inj.endpoints {
			endpoints[t] = u
		}
	} else {
		env = append(env, "STORAGE_EMULATOR_HOST="+storageHost)
		fns := map[string]*emulators.Function{}
		var plog *emulators.LogBuffer
		for _, target := range []string{"Planner", "ShardFn", "DeadLetter"} {
			logs := &emulators.LogBuffer{}
			fn, err := emulators.StartFunction(ctx, p.bin, env, target, 0, logs)
			if err != nil {
				return res, fmt.Errorf("%w\n%s", err, logs)
			}
			stops = append(stops, fn.Stop)
			endpoints[target] = fn.URL()
			fns[target] = fn
			if target == "Planner" {
				plog = logs
			}
		}
		defer func() {
			res.plan = plannerStats(plog.String())
			res.peak = map[string]string{}
			for t, fn := range fns {
				res.peak[t] = fn.PeakRSS()
			}
		}()
	}
	ack := 10 * time.Minute
	if p.relay {
		ack = time.Minute
	}
	if p.faults != nil {
		ack = p.faults.ackDeadline // shorter than a zombie's shard
	}
	for _, s := range []struct{ id, topic, fn string }{{"planner-push", cloudEvents, "Planner"}, {"shards-push", cloudShardTopic, "ShardFn"}, {"dead-push", cloudDead, "DeadLetter"}} {
		endpoint := fmt.Sprintf("%s/projects/%s/topics/%s", endpoints[s.fn], p.project, s.topic)
		sub := emulators.Subscription{ID: s.id, Topic: s.topic, Endpoint: endpoint, AckDeadline: ack}
		if p.relay {
			sub.Endpoint = "" // a pull subscription, pushed by pushRelay
		}
		if s.topic == cloudShardTopic {
			sub.DeadLetter = &pubsubpb.DeadLetterPolicy{DeadLetterTopic: emulators.TopicName(p.project, cloudDead), MaxDeliveryAttempts: 100}
		}
		if err := emulators.Subscribe(ctx, ps, p.project, sub); err != nil {
			return res, err
		}
		if p.relay {
			r := startPushRelay(ctx, ps, emulators.SubscriptionName(p.project, s.id), endpoint)
			stops = append(stops, r.stop)
			if s.topic == cloudShardTopic {
				res.shardRelay = r
			}
		}
	}

	data, err := p.upload(ctx, sc)
	if err != nil {
		return res, err
	}
	fmt.Printf("%s: %d shards x %d rows: uploading the manifest (%d bytes) ...\n", p.project, p.shards, p.rows, len(data))
	start := time.Now()
	res.start = start
	if inj != nil {
		inj.trace.begin(start)
	}
	w := sc.Bucket("manifests").Object(cloudManifest).NewWriter(ctx)
	if _, err := w.Write(data); err != nil {
		return res, err
	}
	if err := w.Close(); err != nil {
		return res, err
	}
	res.gen = w.Attrs().Generation
	res.runID = fmt.Sprintf("gs://manifests/%s#%d", cloudManifest, res.gen)
	for last := time.Now(); ; time.Sleep(500 * time.Millisecond) {
		if ctx.Err() != nil {
			if inj != nil {
				if sh, err := led.Shards(ctx, res.runID); err == nil {
					for _, x := range sh {
						if x.Status != ledger.Done {
							fmt.Printf("not done: %+v\n", x)
						}
					}
				}
			}
			if inj != nil {
				fmt.Printf("--- ShardFn log (tail):\n%s\n--- Planner log (tail):\n%s\n", tail(inj.shard.logs.String(), 6000), tail(inj.planner.logs.String(), 3000))
			}
			return res, fmt.Errorf("bench cloud: %s not done after %s: %v", p.project, p.timeout, res.counts)
		}
		if res.counts, err = led.Progress(ctx, res.runID); err != nil {
			continue // the run document is not there yet
		}
		if res.counts[ledger.Done]+res.counts[ledger.Failed]+res.counts[ledger.DeadLettered] == int64(p.shards) {
			break
		}
		if time.Since(last) > 30*time.Second {
			last = time.Now()
			fmt.Printf("  %s %s: %v\n", p.project, time.Since(start).Round(time.Second), res.counts)
		}
	}
	res.wall = time.Since(start)
	if inj != nil {
		inj.quiesce()
		res.injected = inj
		res.peak = inj.peak()
		res.plan = plannerStats(inj.plannerLog())
	}
	if res.shards, err = led.Shards(ctx, res.runID); err != nil {
		return res, err
	}
	run, err := led.GetRun(ctx, res.runID)
	if err != nil {
		return res, err
	}
	res.out = run.Output
	res.store = gcs.New(sc, gcs.Options{})
	return res, res.readBack(ctx, p.shards*p.rows)
}

// upload puts --rows distinct structures in the bucket and returns the
// manifest: each row of a shard points to one of them, one row group per
// shard.
func (p cloudPass) upload(ctx context.Context, sc *storage.Client) ([]byte, error) {
	var uris []string
	for i := range p.rows {
		s := synth.Make(synth.SampleSeed, i, 40, 90)
		name := "synth/" + s.EntryID + ".cif"
		if err := put(ctx, sc, "structures", name, s.CIF); err != nil {
			return nil, err
		}
		uris = append(uris, "gs://structures/"+name)
	}
	n := p.shards * p.rows
	mrows := make([][]any, 0, n)
	for r := range n {
		mrows = append(mrows, []any{fmt.Sprintf("BENCH-%08d", r), uris[r%p.rows]})
	}
	return manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, mrows, p.rows)
}

// readBack reads every done shard's documents: lost and duplicated rows,
// and the sha1 of each entry's document bytes.
func (r *passResult) readBack(ctx context.Context, n int) error {
	r.rows = n
	seen := make(map[string]int, n)
	r.docs = make(map[string]string, n)
	for _, sh := range r.shards {
		if sh.Status != ledger.Done {
			continue
		}
		err := corpus.Read(ctx, r.store, sh.Output, []string{corpus.EntryID, corpus.Document}, func(rows *manifest.Rows) error {
			for _, v := range rows.Values {
				id := fmt.Sprint(v[0])
				seen[id]++
				r.docs[id] = valueSHA1(v[1])
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, c := range seen {
		r.dup += c - 1
	}
	r.lost = n - len(seen)
	return nil
}

func plannerStats(log string) planStats {
	var plan planStats
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, `"message":"run planned"`) {
			json.Unmarshal([]byte(line), &plan)
		}
	}
	return plan
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
