package functions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudevents/sdk-go/v2/event"
	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/foldcorpus/foldcorpus/internal/cloudlog"
	"github.com/foldcorpus/foldcorpus/internal/config"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/faultblob"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/pubsubq"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

func testEnv(over map[string]string) func(string) string {
	env := map[string]string{
		"FOLDCORPUS_PROJECT":           "p",
		"FOLDCORPUS_REGION":            "us-central1",
		"FOLDCORPUS_INPUT_BUCKETS":     "in, manifests",
		"FOLDCORPUS_OUTPUT_PREFIX":     "gs://out/corpus/",
		"FOLDCORPUS_SHARD_TOPIC":       "shards",
		"FOLDCORPUS_FETCH_CONCURRENCY": "8",
	}
	for k, v := range over {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		over    map[string]string
		wantErr string // substring; empty means valid
	}{
		{"valid", nil, ""},
		{"project from GOOGLE_CLOUD_PROJECT", map[string]string{"FOLDCORPUS_PROJECT": "", "GOOGLE_CLOUD_PROJECT": "g"}, ""},
		{"no project", map[string]string{"FOLDCORPUS_PROJECT": ""}, "FOLDCORPUS_PROJECT"},
		{"no region", map[string]string{"FOLDCORPUS_REGION": ""}, "FOLDCORPUS_REGION"},
		{"no buckets", map[string]string{"FOLDCORPUS_INPUT_BUCKETS": " , "}, "FOLDCORPUS_INPUT_BUCKETS"},
		{"bucket is a URI", map[string]string{"FOLDCORPUS_INPUT_BUCKETS": "gs://in"}, "not a bucket name"},
		{"output not gs", map[string]string{"FOLDCORPUS_OUTPUT_PREFIX": "/tmp/out"}, "FOLDCORPUS_OUTPUT_PREFIX"},
		{"no topic", map[string]string{"FOLDCORPUS_SHARD_TOPIC": ""}, "FOLDCORPUS_SHARD_TOPIC"},
		{"bad concurrency", map[string]string{"FOLDCORPUS_FETCH_CONCURRENCY": "0"}, "FOLDCORPUS_FETCH_CONCURRENCY"},
		{"concurrency not a number", map[string]string{"FOLDCORPUS_FETCH_CONCURRENCY": "many"}, "not an integer"},
		{"bad window", map[string]string{"FOLDCORPUS_RETRY_WINDOW": "1d"}, "not a duration"},
		{"short window", map[string]string{"FOLDCORPUS_RETRY_WINDOW": "1s"}, "FOLDCORPUS_RETRY_WINDOW"},
		{"bad trigger flag", map[string]string{"FOLDCORPUS_TRIGGER_PARQUET": "maybe"}, "FOLDCORPUS_TRIGGER_PARQUET"},
		{"bad log level", map[string]string{"FOLDCORPUS_LOG_LEVEL": "loud"}, "FOLDCORPUS_LOG_LEVEL"},
		{"requester-pays input bucket", map[string]string{"FOLDCORPUS_REQUESTER_PAYS_BUCKETS": "in"}, ""},
		{"requester-pays bucket not an input", map[string]string{"FOLDCORPUS_REQUESTER_PAYS_BUCKETS": "elsewhere"}, "not one of FOLDCORPUS_INPUT_BUCKETS"},
	} {
		cfg, err := FromEnv(testEnv(tc.over))
		if err == nil {
			err = validate(cfg)
		}
		if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: error = %v, want %q", tc.name, err, tc.wantErr)
		}
	}
	cfg, _ := FromEnv(testEnv(nil))
	if cfg.OutputPrefix != "gs://out/corpus" || cfg.OutputBucket() != "out" || strings.Join(cfg.Buckets(), ",") != "in,manifests,out" ||
		cfg.FetchConcurrency != 8 || cfg.Lease != DefaultLease || cfg.RetryWindow != DefaultRetryWindow || !cfg.TriggerParquet || cfg.DefaultFormat != DefaultFormat ||
		len(cfg.RequesterPays) != 0 {
		t.Errorf("FromEnv = %+v", cfg)
	}
	// Requester-pays buckets bill FOLDCORPUS_PROJECT unless told otherwise.
	if cfg, _ := FromEnv(testEnv(map[string]string{"FOLDCORPUS_REQUESTER_PAYS_BUCKETS": " in ,"})); cfg.UserProject != cfg.Project || strings.Join(cfg.RequesterPays, ",") != "in" {
		t.Errorf("FromEnv with a requester-pays bucket: UserProject %q, RequesterPays %q; want the project and [in]", cfg.UserProject, cfg.RequesterPays)
	}
}

// recorder is a queue.Publisher keeping what was published.
type recorder struct {
	mu   sync.Mutex
	msgs []queue.ShardMessage
}

func (r *recorder) Publish(ctx context.Context, m queue.ShardMessage) error {
	return r.PublishAll(ctx, []queue.ShardMessage{m})
}

func (r *recorder) PublishAll(ctx context.Context, msgs []queue.ShardMessage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msgs...)
	return nil
}

type fixture struct {
	srv   *fakestorage.Server
	s     *Server
	store *faultblob.Store
	led   *localledger.Ledger
	pub   *recorder
	logs  *bytes.Buffer
	now   time.Time
}

func newFixture(t *testing.T) *fixture {
	f, c := emulators.RequireFakeGCS(t, "in", "manifests", "out", "elsewhere")
	cfg, err := FromEnv(testEnv(nil))
	if err != nil || validate(cfg) != nil {
		t.Fatal(err, validate(cfg))
	}
	led, err := localledger.Open(filepath.Join(t.TempDir(), "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	fx := &fixture{srv: f.Server, led: led, pub: &recorder{}, logs: &bytes.Buffer{}, now: time.Now()}
	fx.store = faultblob.New(gcs.New(c, gcs.Options{AllowedBuckets: cfg.Buckets(), MaxObjectBytes: cfg.MaxObjectBytes}), 0)
	fx.s = New(cfg, Deps{Store: fx.store, Ledger: led, Publisher: fx.pub, Log: cloudlog.New(fx.logs, slog.LevelDebug, "p"), Now: func() time.Time { return fx.now }})
	return fx
}

// upload puts corpus files and a manifest of them in the fake.
func (fx *fixture) upload(t *testing.T, manifestName string, files []string) {
	var rows [][]any
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := "cif/" + filepath.Base(path)
		fx.srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "in", Name: name}, Content: data})
		rows = append(rows, []any{strings.TrimSuffix(filepath.Base(path), ".cif"), "gs://in/" + name})
	}
	data, err := manifest.Encode([]format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}}, rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	fx.srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "manifests", Name: manifestName, Generation: 1700000000000001}, Content: data})
}

func finalized(bucket, name string, gen int64, at time.Time) event.Event {
	e := event.New()
	e.SetID("ev-" + name)
	e.SetType(StorageFinalized)
	e.SetSource("//storage.googleapis.com/projects/_/buckets/" + bucket)
	e.SetTime(at)
	e.SetExtension("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	e.SetData(event.ApplicationJSON, map[string]any{"bucket": bucket, "name": name, "generation": json.Number(itoa(gen)), "size": "100"})
	return e
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func published(t *testing.T, m queue.ShardMessage, at time.Time) event.Event {
	pm, err := pubsubq.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return pubsubEvent(pm.Data, pm.Attributes, at)
}

func pubsubEvent(data []byte, attrs map[string]string, at time.Time) event.Event {
	e := event.New()
	e.SetID("msg-1")
	e.SetType(PubSubPublished)
	e.SetSource("//pubsub.googleapis.com/projects/p/topics/shards")
	e.SetTime(at)
	e.SetData(event.ApplicationJSON, map[string]any{"message": map[string]any{"data": data, "attributes": attrs, "messageId": "1", "publishTime": at}})
	return e
}

func TestPlannerThenShardFn(t *testing.T) {
	files := testcorpus.Files(t, "afdb")[:3]
	fx := newFixture(t)
	ctx := context.Background()
	fx.upload(t, "runs/a.parquet", files)
	const gen = 1700000000000001
	runID := "gs://manifests/runs/a.parquet#1700000000000001"

	// The finalize event, then its redelivery: one run, same id.
	for range 2 {
		if err := fx.s.Planner(ctx, finalized("manifests", "runs/a.parquet", gen, fx.now)); err != nil {
			t.Fatalf("Planner = %v", err)
		}
	}
	if len(fx.led.Runs()) != 1 || fx.led.Runs()[0].ID != runID {
		t.Fatalf("runs = %+v, want one run %s", fx.led.Runs(), runID)
	}
	if len(fx.pub.msgs) != 2 {
		t.Fatalf("published %d messages, want 1 per planning (the shard is not done yet)", len(fx.pub.msgs))
	}
	msg := fx.pub.msgs[0]
	if want := "gs://out/corpus/runs/a/g1700000000000001/part-00000-of-00001.parquet"; msg.Output != want {
		t.Errorf("output = %s, want %s", msg.Output, want)
	}
	if msg.ManifestGeneration != gen {
		t.Errorf("manifest generation = %d, want the event's %d", msg.ManifestGeneration, gen)
	}
	for i := range 2 { // a duplicate delivery is a no-op
		if err := fx.s.ShardFn(ctx, published(t, msg, fx.now)); err != nil {
			t.Fatalf("ShardFn #%d = %v", i, err)
		}
	}
	shards, _ := fx.led.Shards(ctx, runID)
	if len(shards) != 1 || shards[0].Status != ledger.Done || shards[0].Counts.RowsIn != 3 || shards[0].Attempts != 1 || shards[0].SHA256 == "" {
		t.Fatalf("shard = %+v, want done with 3 rows after one attempt", shards)
	}
	if _, err := fx.store.ReadAll(ctx, msg.Output); err != nil {
		t.Errorf("output object: %v", err)
	}
	logs := fx.logs.String()
	for _, want := range []string{`"severity":"INFO"`, `"message":"shard done"`, `"run":"` + runID + `"`, `"shard":0`, `"logging.googleapis.com/trace":"projects/p/traces/0af7651916cd43dd8448eb211c80319c"`, `"message":"shard already done; duplicate delivery acknowledged"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
}

func TestShardFnFailures(t *testing.T) {
	files := testcorpus.Files(t, "afdb")[:2]
	fx := newFixture(t)
	ctx := context.Background()
	fx.upload(t, "runs/b.parquet", files)
	if err := fx.s.Planner(ctx, finalized("manifests", "runs/b.parquet", 1700000000000001, fx.now)); err != nil {
		t.Fatal(err)
	}
	msg := fx.pub.msgs[0]
	runID := msg.RunID

	// Transient storage error: returned (redelivery); the shard is not done.
	fx.store.Transient = "/cif/"
	if err := fx.s.ShardFn(ctx, published(t, msg, fx.now)); !errors.Is(err, derrors.ErrTransient) {
		t.Fatalf("ShardFn with a transient read error = %v, want a transient error", err)
	}
	fx.store.Transient = ""
	if shards, _ := fx.led.Shards(ctx, runID); shards[0].Status != ledger.Pending || shards[0].Error != "" || !strings.Contains(shards[0].LastError, "503") {
		t.Errorf("after a transient failure: %+v, want pending (not failed) with the cause as last error", shards[0])
	}

	// Invalid messages are acknowledged and never processed.
	bad := []struct {
		name string
		ev   event.Event
	}{
		{"output outside the prefix", published(t, withOutput(msg, "gs://out/elsewhere/p.parquet"), fx.now)},
		{"manifest in another bucket", published(t, withManifest(msg, "gs://elsewhere/m.parquet"), fx.now)},
		{"local path", published(t, withManifest(msg, "file:///etc/passwd"), fx.now)},
		{"garbage body", pubsubEvent([]byte("{"), map[string]string{"run": runID, "shard": "0"}, fx.now)},
		{"older than the retry window", published(t, msg, fx.now.Add(-25*time.Hour))},
	}
	for _, b := range bad {
		if err := fx.s.ShardFn(ctx, b.ev); err != nil {
			t.Errorf("%s: ShardFn = %v, want nil (acknowledged)", b.name, err)
		}
	}
	if !strings.Contains(fx.logs.String(), "dropping event older than the retry window") {
		t.Error("no log line for the old event")
	}
	shards, _ := fx.led.Shards(ctx, runID)
	if shards[0].Status != ledger.Failed || !strings.Contains(shards[0].Error, "invalid message") {
		t.Errorf("after a garbage message naming the shard: %+v, want failed with the cause", shards[0])
	}

	// A redelivery after the faults completes the shard.
	if err := fx.s.ShardFn(ctx, published(t, msg, fx.now)); err != nil {
		t.Fatal(err)
	}
	shards, _ = fx.led.Shards(ctx, runID)
	if shards[0].Status != ledger.Done {
		t.Errorf("shard = %+v, want done", shards[0])
	}

	// Dead letter of a done shard: stays done.
	dl, _ := pubsubq.Encode(msg)
	dl.Attributes[AttrDeadLetterCount] = "5"
	if err := fx.s.DeadLetter(ctx, pubsubEvent(dl.Data, dl.Attributes, fx.now)); err != nil {
		t.Fatal(err)
	}
	shards, _ = fx.led.Shards(ctx, runID)
	if shards[0].Status != ledger.Done {
		t.Errorf("after a dead letter of a done shard: %+v", shards[0])
	}
}

// TestDeadLetterAfterTransientFailures: a shard that failed transiently on
// every delivery is pending with its last error; the dead letter marks it
// dead-lettered with the delivery count and that error.
func TestDeadLetterAfterTransientFailures(t *testing.T) {
	files := testcorpus.Files(t, "afdb")[:1]
	fx := newFixture(t)
	ctx := context.Background()
	fx.upload(t, "runs/d.parquet", files)
	if err := fx.s.Planner(ctx, finalized("manifests", "runs/d.parquet", 1700000000000001, fx.now)); err != nil {
		t.Fatal(err)
	}
	msg := fx.pub.msgs[0]
	fx.store.Transient = "/cif/"
	for range 2 {
		if err := fx.s.ShardFn(ctx, published(t, msg, fx.now)); !errors.Is(err, derrors.ErrTransient) {
			t.Fatalf("ShardFn = %v, want a transient error", err)
		}
	}
	dl, _ := pubsubq.Encode(msg)
	dl.Attributes[AttrDeadLetterCount] = "2"
	if err := fx.s.DeadLetter(ctx, pubsubEvent(dl.Data, dl.Attributes, fx.now)); err != nil {
		t.Fatal(err)
	}
	shards, _ := fx.led.Shards(ctx, msg.RunID)
	if s := shards[0]; s.Status != ledger.DeadLettered || s.Attempts != 2 ||
		!strings.Contains(s.Error, "dead-lettered after 2 delivery attempts; last error: ") || !strings.Contains(s.Error, "503") {
		t.Errorf("dead-lettered shard = %+v, want attempts 2 and the delivery count with the last transient error", s)
	}
}

// TestManifestOverwritten: a manifest overwritten after its run was
// planned fails the run's shards permanently with a clear error instead of
// feeding them the new object's rows.
func TestManifestOverwritten(t *testing.T) {
	files := testcorpus.Files(t, "afdb")[:1]
	fx := newFixture(t)
	ctx := context.Background()
	fx.upload(t, "runs/o.parquet", files)
	if err := fx.s.Planner(ctx, finalized("manifests", "runs/o.parquet", 1700000000000001, fx.now)); err != nil {
		t.Fatal(err)
	}
	msg := fx.pub.msgs[0]
	// Written over (same name, new generation; the bucket keeps no
	// versions).
	old, err := fx.srv.GetObject("manifests", "runs/o.parquet")
	if err != nil {
		t.Fatal(err)
	}
	fx.srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "manifests", Name: "runs/o.parquet", Generation: 1700000000000002}, Content: old.Content})
	if err := fx.s.ShardFn(ctx, published(t, msg, fx.now)); err != nil {
		t.Fatalf("ShardFn = %v, want nil (a permanent failure is acknowledged)", err)
	}
	shards, _ := fx.led.Shards(ctx, msg.RunID)
	if s := shards[0]; s.Status != ledger.Failed || !strings.Contains(s.Error, "generation 1700000000000001 of gs://manifests/runs/o.parquet no longer exists") {
		t.Errorf("shard = %+v, want failed saying the manifest generation no longer exists", s)
	}
	if _, err := fx.store.ReadAll(ctx, msg.Output); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("output object after the failure: %v, want none", err)
	}
}

func TestPlannerIgnores(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		ev   event.Event
	}{
		{"not a manifest", finalized("manifests", "notes.txt", 1, fx.now)},
		{"bucket not allowed", finalized("elsewhere", "m.parquet", 1, fx.now)},
		{"an output object", finalized("out", "corpus/runs/a/g1/part-00000-of-00001.parquet", 1, fx.now)},
		{"too old", finalized("manifests", "runs/a.parquet", 1, fx.now.Add(-48*time.Hour))},
		{"missing manifest (permanent)", finalized("manifests", "runs/none.parquet", 1, fx.now)},
	} {
		if err := fx.s.Planner(ctx, tc.ev); err != nil {
			t.Errorf("%s: Planner = %v, want nil", tc.name, err)
		}
	}
	if len(fx.pub.msgs) != 0 || len(fx.led.Runs()) != 0 {
		t.Errorf("published %d, runs %d; want nothing", len(fx.pub.msgs), len(fx.led.Runs()))
	}
}

func withOutput(m queue.ShardMessage, o string) queue.ShardMessage   { m.Output = o; return m }
func withManifest(m queue.ShardMessage, u string) queue.ShardMessage { m.Manifest = u; return m }

// TestDocListsVars: the package doc's configuration table names every
// variable the functions read, and no other.
func TestDocListsVars(t *testing.T) {
	src, err := os.ReadFile("functions.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^//\t(FOLDCORPUS_[A-Z_]+) `).FindAllStringSubmatch(string(src), -1) {
		doc[m[1]] = true
	}
	if got, want := slices.Sorted(maps.Keys(doc)), config.Vars(config.Functions); !slices.Equal(got, want) {
		t.Errorf("the package doc lists\n  %v\nthe functions read\n  %v", got, want)
	}
}
