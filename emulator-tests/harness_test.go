package emulatortests

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/firestoreledger"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

func TestMain(m *testing.M) {
	code := emulators.RunMain(m, emulators.Firestore, emulators.PubSub)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// patient stretches a wait for something the stack must do (a shard
// settling, a message arriving, a log line) by slack: a wait returns as
// soon as its condition holds, so the stretch costs a passing test
// nothing, while CI's shared two-core machines have run these tests
// 4-10x slower than a quiet one. A wait that expects nothing to happen
// (pullFor) is not stretched.
func patient(d time.Duration) time.Duration { return slack * d }

const slack = 4

// Buckets and names every stack uses.
const (
	manifestBucket = "manifests"
	dataBucket     = "structures"
	outBucket      = "out"
	outPrefix      = "gs://out/corpus"
	eventsTopic    = "gcs-events"
	shardTopic     = "shards"
	deadTopic      = "shards-dead"
)

var (
	binDir                   string
	binDirOnce               sync.Once
	fnOnce, cliOnce          sync.Once
	fnBin, fnPkg, cliBin     string
	binDirErr, fnErr, cliErr error
)

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// functionsBinary builds, once per test binary, the function binary as
// Google's Go buildpack does (buildpackBuild): from the files the
// deployment uploads, after the buildpack's move, with the main it
// generates.
func functionsBinary(t *testing.T) string {
	t.Helper()
	fnOnce.Do(func() {
		dir := filepath.Join(tempBinDir(t), "buildpack-app")
		if fnErr = os.Mkdir(dir, 0o755); fnErr != nil {
			return
		}
		fnBin, fnPkg, fnErr = buildpackBuild(dir)
	})
	if fnErr != nil {
		t.Fatal(fnErr)
	}
	return fnBin
}

// cliBinary builds the foldcorpus CLI once per test binary.
func cliBinary(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		cliBin = filepath.Join(tempBinDir(t), "foldcorpus")
		cliErr = goBuild("-o", cliBin, "./cmd/foldcorpus")
	})
	if cliErr != nil {
		t.Fatal(cliErr)
	}
	return cliBin
}

func tempBinDir(t *testing.T) string {
	binDirOnce.Do(func() { binDir, binDirErr = os.MkdirTemp("", "foldcorpus-e2e-") })
	if binDirErr != nil {
		t.Fatal(binDirErr)
	}
	return binDir
}

func goBuild(args ...string) error {
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = repoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

var projectSeq atomic.Int32

// stack is one isolated deployment: its own project id in the shared
// emulators, its own fake GCS (behind a fault-injecting proxy) and its own
// function processes.
type stack struct {
	t       *testing.T
	ctx     context.Context
	project string
	ps      *pubsub.Client
	fake    *fakestorage.Server
	proxy   *faultProxy
	gcsc    *storage.Client // straight to the fake (test setup and checks)
	store   *gcs.Store
	fs      *firestore.Client
	ledger  *firestoreledger.Ledger
	fns     map[string]*fnProc
	env     []string
	// capacity is the 429 proxy in front of ShardFn (stackOpts.shardCapacity).
	capacity *capacityProxy
	// gcsLog is fake-gcs-server's request log (one line per request).
	gcsLog *emulators.LogBuffer
}

type stackOpts struct {
	lease             time.Duration
	fetchConcurrency  int
	maxAttempts       int32
	rowGroupsPerShard int
	// noFunctions: start no function processes and no push subscriptions.
	noFunctions bool
	// requesterPays: buckets configured requester-pays (billed to the
	// stack's project).
	requesterPays []string
	// region the functions run in (FOLDCORPUS_REGION); the buckets are in
	// us-central1, the default.
	region string
	// shardCapacity > 0 delivers the shard subscription through a pushRelay
	// into a capacityProxy in front of ShardFn, which admits that many
	// concurrent requests and answers 429 beyond (as Cloud Run does at
	// max_instance_count). See backpressure_test.go.
	shardCapacity int
	// extraBuckets are created in the fake besides the stack's three (not
	// in the functions' allow-list).
	extraBuckets []string
	// env: extra environment of the functions.
	env []string
}

func newStack(t *testing.T, o stackOpts) *stack {
	t.Helper()
	bin := functionsBinary(t)
	ctx := context.Background()
	s := &stack{t: t, ctx: ctx, fns: map[string]*fnProc{}, gcsLog: &emulators.LogBuffer{}}
	s.project = fmt.Sprintf("e2e-%d-%d", os.Getpid()%100000, projectSeq.Add(1))
	var err error
	if s.ps, err = pubsub.NewClient(ctx, s.project); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.ps.Close() })
	if err := emulators.CreateTopics(ctx, s.ps, s.project, eventsTopic, shardTopic, deadTopic); err != nil {
		t.Fatal(err)
	}
	// fake-gcs-server publishes finalize notifications of the manifest
	// bucket to the events topic (as a GCS Pub/Sub notification would).
	f, err := emulators.StartFakeGCS(emulators.FakeGCSOptions{
		Buckets: append([]string{manifestBucket, dataBucket, outBucket}, o.extraBuckets...),
		Events: fakestorage.EventManagerOptions{ProjectID: s.project, TopicName: eventsTopic, Bucket: manifestBucket,
			NotifyOn: fakestorage.EventNotificationOptions{Finalize: true}},
		Log:             s.gcsLog,
		BucketsLocation: "US-CENTRAL1", // as GCS reports a regional bucket
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Stop)
	s.fake = f.Server
	s.proxy = newFaultProxy(t, f.URL)
	if s.gcsc, err = emulators.StorageClient(ctx, f.URL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.gcsc.Close() })
	s.store = gcs.New(s.gcsc, gcs.Options{})
	if s.fs, err = firestore.NewClient(ctx, s.project); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.fs.Close() })
	s.ledger = firestoreledger.New(s.fs, firestoreledger.Options{})

	if o.lease == 0 {
		o.lease = 10 * time.Minute
	}
	if o.fetchConcurrency == 0 {
		o.fetchConcurrency = 8
	}
	if o.maxAttempts == 0 {
		o.maxAttempts = 5
	}
	s.env = append(os.Environ(),
		"FOLDCORPUS_PROJECT="+s.project,
		"FOLDCORPUS_REGION="+cmp.Or(o.region, "us-central1"),
		"FOLDCORPUS_INPUT_BUCKETS="+manifestBucket+","+dataBucket,
		"FOLDCORPUS_OUTPUT_PREFIX="+outPrefix,
		"FOLDCORPUS_SHARD_TOPIC="+shardTopic,
		fmt.Sprintf("FOLDCORPUS_FETCH_CONCURRENCY=%d", o.fetchConcurrency),
		fmt.Sprintf("FOLDCORPUS_LEASE=%s", o.lease),
		fmt.Sprintf("FOLDCORPUS_ROW_GROUPS_PER_SHARD=%d", o.rowGroupsPerShard),
		"STORAGE_EMULATOR_HOST="+strings.TrimPrefix(s.proxy.srv.URL, "http://"),
		"GOOGLE_CLOUD_PROJECT="+s.project,
		// As infra/functions.tf sets them.
		"FOLDCORPUS_USER_PROJECT="+s.project,
		"FOLDCORPUS_REQUESTER_PAYS_BUCKETS="+strings.Join(o.requesterPays, ","),
	)
	s.env = append(s.env, o.env...)
	if o.noFunctions {
		return s
	}
	for _, target := range []string{"Planner", "ShardFn", "DeadLetter"} {
		s.fns[target] = startFn(t, bin, s.env, target, 0)
	}
	s.subscribe(eventsTopic+"-push", eventsTopic, s.fns["Planner"].pushURL(s.project, eventsTopic), nil)
	shardDL := &pubsubpb.DeadLetterPolicy{DeadLetterTopic: s.topic(deadTopic), MaxDeliveryAttempts: o.maxAttempts}
	if o.shardCapacity > 0 {
		s.capacity = newCapacityProxy(t, s.fns["ShardFn"].url(), o.shardCapacity)
		s.subscribe(shardTopic+"-relay", shardTopic, "", shardDL)
		startPushRelay(t, s, shardTopic+"-relay", s.capacity.srv.URL+"/projects/"+s.project+"/topics/"+shardTopic)
	} else {
		s.subscribe(shardTopic+"-push", shardTopic, s.fns["ShardFn"].pushURL(s.project, shardTopic), shardDL)
	}
	s.subscribe(deadTopic+"-push", deadTopic, s.fns["DeadLetter"].pushURL(s.project, deadTopic), nil)
	t.Cleanup(func() {
		if t.Failed() {
			for name, p := range s.fns {
				t.Logf("--- %s log (last 40 lines) ---\n%s", name, p.tail(40))
			}
		}
	})
	return s
}

func (s *stack) topic(id string) string { return emulators.TopicName(s.project, id) }
func (s *stack) sub(id string) string   { return emulators.SubscriptionName(s.project, id) }

// subscribe creates a subscription: push to endpoint when set, else pull.
func (s *stack) subscribe(id, topic, endpoint string, dl *pubsubpb.DeadLetterPolicy) {
	sub := emulators.Subscription{ID: id, Topic: topic, Endpoint: endpoint, DeadLetter: dl}
	if err := emulators.Subscribe(s.ctx, s.ps, s.project, sub); err != nil {
		s.t.Fatal(err)
	}
}

// put writes an object straight into the fake (no fault proxy).
func (s *stack) put(bucket, name string, data []byte, contentEncoding string) int64 {
	s.t.Helper()
	w := s.gcsc.Bucket(bucket).Object(name).NewWriter(s.ctx)
	w.ContentEncoding = contentEncoding
	w.ChunkSize = 0
	if _, err := w.Write(data); err != nil {
		s.t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		s.t.Fatal(err)
	}
	return w.Attrs().Generation
}

// waitSettled waits until every shard record of the run is written (the
// run document comes first) and none is pending or running, and returns the
// shards.
func (s *stack) waitSettled(runID string, timeout time.Duration) []ledger.Shard {
	s.t.Helper()
	s.waitFor(runID, timeout, "settled", func(p map[ledger.Status]int64, n int) bool {
		var total int64
		for _, c := range p {
			total += c
		}
		return total == int64(n) && p[ledger.Pending] == 0 && p[ledger.Running] == 0
	})
	shards, err := s.ledger.Shards(s.ctx, runID)
	if err != nil {
		s.t.Fatal(err)
	}
	return shards
}

// cli runs the foldcorpus CLI against the stack's emulators and returns its
// output and exit code.
func (s *stack) cli(args ...string) (string, int) {
	s.t.Helper()
	cmd := exec.Command(cliBinary(s.t), args...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatal(err)
	}
	return string(out), code
}

// fnProc is one function served by the deploy binary
// (emulators.Function), which can be killed and started again on its port.
type fnProc struct {
	t      *testing.T
	bin    string
	env    []string
	target string
	port   int
	mu     sync.Mutex
	fn     *emulators.Function
	log    *emulators.LogBuffer
}

// startFn starts the deploy binary serving target (all targets when empty)
// on port (a free one when 0) and waits until it accepts connections.
func startFn(t *testing.T, bin string, env []string, target string, port int) *fnProc {
	t.Helper()
	p := &fnProc{t: t, bin: bin, env: env, target: target, port: port, log: &emulators.LogBuffer{}}
	p.start()
	t.Cleanup(p.kill)
	return p
}

// start starts a new instance on p's port (a free one the first time
// when p.port is 0).
func (p *fnProc) start() {
	p.t.Helper()
	fn, err := emulators.StartFunction(context.Background(), p.bin, p.env, p.target, p.port, p.log)
	if err != nil {
		p.t.Fatalf("%v:\n%s", err, p.log)
	}
	p.mu.Lock()
	p.fn, p.port = fn, fn.Port
	p.mu.Unlock()
}

// kill sends SIGKILL to the process (as a crashed instance).
func (p *fnProc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fn != nil {
		p.fn.Stop()
		p.fn = nil
	}
}

func (p *fnProc) url() string { return fmt.Sprintf("http://127.0.0.1:%d", p.port) }

// pushURL is the push endpoint: the framework reads the topic from the path
// when it turns a raw push request into a CloudEvent.
func (p *fnProc) pushURL(project, topic string) string {
	return fmt.Sprintf("%s/projects/%s/topics/%s", p.url(), project, topic)
}

func (p *fnProc) tail(n int) string {
	lines := strings.Split(strings.TrimSpace(p.log.String()), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// logRecords returns the JSON log records whose message is msg.
func (p *fnProc) logRecords(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(p.log.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["message"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// faultProxy sits between the functions and fake-gcs-server; hook, when
// set, may answer a request itself (a fault) or let it through.
type faultProxy struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hook func(w http.ResponseWriter, r *http.Request) bool
	seen []emulators.GCSRequest // every request the functions and the CLI sent
}

func newFaultProxy(t *testing.T, target string) *faultProxy {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &faultProxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		hook := p.hook
		p.seen = append(p.seen, emulators.ParseGCSRequest(r))
		p.mu.Unlock()
		if hook != nil && hook(w, r) {
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// requests returns the requests seen so far.
func (p *faultProxy) requests() []emulators.GCSRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]emulators.GCSRequest(nil), p.seen...)
}

func (p *faultProxy) set(h func(w http.ResponseWriter, r *http.Request) bool) {
	p.mu.Lock()
	p.hook = h
	p.mu.Unlock()
}

// isObjectGet reports whether r reads the media of an object whose name
// contains part (XML or JSON API).
func isObjectGet(r *http.Request, part string) bool {
	if r.Method != http.MethodGet {
		return false
	}
	if strings.HasPrefix(r.URL.Path, "/storage/v1/") && r.URL.Query().Get("alt") != "media" {
		return false
	}
	p, _ := url.PathUnescape(r.URL.EscapedPath())
	return strings.Contains(p, part)
}
