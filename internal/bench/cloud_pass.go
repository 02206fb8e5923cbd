package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"golang.org/x/sync/errgroup"

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
	wall   time.Duration
	start  time.Time // the manifest upload
	counts map[ledger.Status]int64
	shards []ledger.Shard
	peak   map[string]string
	plan   planStats
	lost   int
	dup    int
	rows   int
	docs   map[string]string // entry_id -> sha1 of the document's bytes
	stops  []func()          // what the pass started (stopAll)
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

// passEnv is a pass's emulator clients and the functions' push endpoints.
type passEnv struct {
	ps        *pubsub.Client
	sc        *storage.Client
	led       *firestoreledger.Ledger
	gcsURL    string
	endpoints map[string]string // function target -> push base URL
	inj       *injector         // nil fault-free
	fns       map[string]*emulators.Function
	plog      *emulators.LogBuffer
}

// run runs the pass until every shard is done (or failed or dead-lettered)
// and reads the outputs back. The caller calls res.stopAll when it is done
// with res.store.
func (p cloudPass) run(ctx context.Context) (res *passResult, err error) {
	res = &passResult{}
	defer func() {
		if err != nil {
			res.stopAll()
		}
	}()
	env, err := p.startEmulators(ctx, res)
	if err != nil {
		return res, err
	}
	if err := p.startFunctions(ctx, env, res); err != nil {
		return res, err
	}
	if err := p.subscribe(ctx, env, res); err != nil {
		return res, err
	}
	if err := p.uploadManifest(ctx, env, res); err != nil {
		return res, err
	}
	if err := p.wait(ctx, env, res); err != nil {
		return res, err
	}
	return res, p.collect(ctx, env, res)
}

// stopAll stops what the pass started, the last first.
func (res *passResult) stopAll() {
	for i := len(res.stops) - 1; i >= 0; i-- {
		res.stops[i]()
	}
	res.stops = nil
}

// startEmulators makes the pass's topics, its fake-gcs-server (notifying
// the events topic of manifest uploads) and its clients.
func (p cloudPass) startEmulators(ctx context.Context, res *passResult) (*passEnv, error) {
	ps, err := pubsub.NewClient(ctx, p.project)
	if err != nil {
		return nil, err
	}
	res.stops = append(res.stops, func() { ps.Close() })
	if err := emulators.CreateTopics(ctx, ps, p.project, cloudEvents, cloudShardTopic, cloudDead); err != nil {
		return nil, err
	}
	f, err := emulators.StartFakeGCS(emulators.FakeGCSOptions{Buckets: []string{"manifests", "structures", "out"},
		Events: fakestorage.EventManagerOptions{ProjectID: p.project, TopicName: cloudEvents, Bucket: "manifests",
			NotifyOn: fakestorage.EventNotificationOptions{Finalize: true}}})
	if err != nil {
		return nil, err
	}
	res.stops = append(res.stops, f.Stop)
	sc, err := emulators.StorageClient(ctx, f.URL)
	if err != nil {
		return nil, err
	}
	res.stops = append(res.stops, func() { sc.Close() })
	fc, err := firestore.NewClient(ctx, p.project)
	if err != nil {
		return nil, err
	}
	res.stops = append(res.stops, func() { fc.Close() })
	return &passEnv{ps: ps, sc: sc, led: firestoreledger.New(fc, firestoreledger.Options{}), gcsURL: f.URL, endpoints: map[string]string{}}, nil
}

// startFunctions starts the deployed binary's Planner, ShardFn and
// DeadLetter: behind the fault injectors in a fault pass, else one process
// each.
func (p cloudPass) startFunctions(ctx context.Context, env *passEnv, res *passResult) error {
	vars := append(os.Environ(), "FOLDCORPUS_PROJECT="+p.project, "GOOGLE_CLOUD_PROJECT="+p.project, "FOLDCORPUS_REGION=us-central1",
		"FOLDCORPUS_INPUT_BUCKETS=manifests,structures", "FOLDCORPUS_OUTPUT_PREFIX=gs://out/corpus", "FOLDCORPUS_SHARD_TOPIC="+cloudShardTopic,
		"FOLDCORPUS_ROW_GROUPS_PER_SHARD=1", "FOLDCORPUS_FETCH_CONCURRENCY=20")
	if p.faults != nil {
		inj, err := startInjector(ctx, p, vars, env.gcsURL, env.ps)
		if err != nil {
			return err
		}
		res.stops = append(res.stops, inj.stop)
		env.inj = inj
		maps.Copy(env.endpoints, inj.endpoints)
		return nil
	}
	vars = append(vars, "STORAGE_EMULATOR_HOST="+strings.TrimPrefix(env.gcsURL, "http://"))
	env.fns = map[string]*emulators.Function{}
	for _, target := range []string{"Planner", "ShardFn", "DeadLetter"} {
		logs := &emulators.LogBuffer{}
		fn, err := emulators.StartFunction(ctx, p.bin, vars, target, 0, logs)
		if err != nil {
			return fmt.Errorf("%w\n%s", err, logs)
		}
		res.stops = append(res.stops, fn.Stop)
		env.endpoints[target] = fn.URL()
		env.fns[target] = fn
		if target == "Planner" {
			env.plog = logs
		}
	}
	return nil
}

// subscribe makes the three subscriptions: push to the functions, or pull
// subscriptions pushed by pushRelay; the shard subscription dead-letters
// after 100 attempts.
func (p cloudPass) subscribe(ctx context.Context, env *passEnv, res *passResult) error {
	ack := 10 * time.Minute
	if p.relay {
		ack = time.Minute
	}
	if p.faults != nil {
		ack = p.faults.ackDeadline // shorter than a zombie's shard
	}
	for _, s := range []struct{ id, topic, fn string }{{"planner-push", cloudEvents, "Planner"}, {"shards-push", cloudShardTopic, "ShardFn"}, {"dead-push", cloudDead, "DeadLetter"}} {
		endpoint := fmt.Sprintf("%s/projects/%s/topics/%s", env.endpoints[s.fn], p.project, s.topic)
		sub := emulators.Subscription{ID: s.id, Topic: s.topic, Endpoint: endpoint, AckDeadline: ack}
		if p.relay {
			sub.Endpoint = "" // a pull subscription, pushed by pushRelay
		}
		if s.topic == cloudShardTopic {
			sub.DeadLetter = &pubsubpb.DeadLetterPolicy{DeadLetterTopic: emulators.TopicName(p.project, cloudDead), MaxDeliveryAttempts: 100}
		}
		if err := emulators.Subscribe(ctx, env.ps, p.project, sub); err != nil {
			return err
		}
		if p.relay {
			r := startPushRelay(ctx, env.ps, emulators.SubscriptionName(p.project, s.id), s.topic, endpoint)
			res.stops = append(res.stops, r.stop)
			if s.topic == cloudShardTopic {
				res.shardRelay = r
			}
		}
	}
	return nil
}

// uploadManifest puts the structures and then the manifest in the
// buckets: the manifest's upload starts the run (and the pass's clock).
func (p cloudPass) uploadManifest(ctx context.Context, env *passEnv, res *passResult) error {
	data, err := p.upload(ctx, env.sc)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d shards x %d rows: uploading the manifest (%d bytes) ...\n", p.project, p.shards, p.rows, len(data))
	res.start = time.Now()
	if env.inj != nil {
		env.inj.trace.begin(res.start)
	}
	w := env.sc.Bucket("manifests").Object(cloudManifest).NewWriter(ctx)
	if _, err := w.Write(data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	res.gen = w.Attrs().Generation
	res.runID = fmt.Sprintf("gs://manifests/%s#%d", cloudManifest, res.gen)
	return nil
}

// wait polls the ledger until every shard is done, failed or
// dead-lettered, printing progress every 30 s and, in a fault pass, where
// it stands when no shard has finished for a minute (printStall).
func (p cloudPass) wait(ctx context.Context, env *passEnv, res *passResult) error {
	inj, led := env.inj, env.led
	var lastFinished int64
	progressed, dumped := time.Now(), time.Time{}
	var err error
	for last := time.Now(); ; time.Sleep(500 * time.Millisecond) {
		if ctx.Err() != nil {
			if inj != nil {
				inj.printStall(context.WithoutCancel(ctx), led, res.runID, res.shardRelay, time.Since(progressed))
				fmt.Printf("--- ShardFn log (tail):\n%s\n--- Planner log (tail):\n%s\n", tail(inj.shard.logs.String(), 6000), tail(inj.planner.logs.String(), 3000))
			}
			return fmt.Errorf("bench cloud: %s not done after %s: %v", p.project, p.timeout, res.counts)
		}
		if res.counts, err = led.Progress(ctx, res.runID); err != nil {
			continue // the run document is not there yet
		}
		finished := res.counts[ledger.Done] + res.counts[ledger.Failed] + res.counts[ledger.DeadLettered]
		if finished == int64(p.shards) {
			res.wall = time.Since(res.start)
			return nil
		}
		if finished != lastFinished {
			lastFinished, progressed = finished, time.Now()
		} else if inj != nil && time.Since(progressed) > time.Minute && time.Since(dumped) > 2*time.Minute {
			dumped = time.Now()
			inj.printStall(ctx, led, res.runID, res.shardRelay, time.Since(progressed))
		}
		if time.Since(last) > 30*time.Second {
			last = time.Now()
			fmt.Printf("  %s %s: %v\n", p.project, time.Since(res.start).Round(time.Second), res.counts)
		}
	}
}

// collect gathers what the pass measured (the planner's figures, peak
// memory, every shard's record) and reads the outputs back.
func (p cloudPass) collect(ctx context.Context, env *passEnv, res *passResult) error {
	if inj := env.inj; inj != nil {
		inj.quiesce()
		res.injected = inj
		res.peak = inj.peak()
		res.plan = plannerStats(inj.plannerLog())
	} else {
		res.plan = plannerStats(env.plog.String())
		res.peak = map[string]string{}
		for t, fn := range env.fns {
			res.peak[t] = fn.PeakRSS()
		}
	}
	var err error
	if res.shards, err = env.led.Shards(ctx, res.runID); err != nil {
		return err
	}
	run, err := env.led.GetRun(ctx, res.runID)
	if err != nil {
		return err
	}
	res.out = run.Output
	res.store = gcs.New(env.sc, gcs.Options{})
	return res.readBack(ctx, p.shards*p.rows)
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
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8) // a few reads at a time: each is a footer and two columns
	for _, sh := range r.shards {
		if sh.Status != ledger.Done {
			continue
		}
		g.Go(func() error {
			return corpus.Read(gctx, r.store, sh.Output, []string{corpus.EntryID, corpus.Document}, func(rows *manifest.Rows) error {
				mu.Lock()
				defer mu.Unlock()
				for _, v := range rows.Values {
					id := fmt.Sprint(v[0])
					seen[id]++
					r.docs[id] = valueSHA1(v[1])
				}
				return nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		return err
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
