package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/firestore"
	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/pstest"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/firestoreledger"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
	"github.com/foldcorpus/foldcorpus/tpujob"
)

// tpujobEnv is a running set of emulators for the tpujob command: the
// Firestore emulator, pstest as the Pub/Sub emulator, fake-gcs-server.
type tpujobEnv struct {
	srv    *pstest.Server
	mu     sync.Mutex // pstest's Message updates its result in place
	pub    *pubsub.Publisher
	store  *gcs.Store
	ledger *firestoreledger.Ledger
	enc    *neural.Encoder
}

var smallB2T = b2t.Config{DModel: 16, DInner: 32, DState: 4, DTRank: 2, DConv: 4, Layers: 2}

func newTPUJobEnv(t *testing.T) *tpujobEnv {
	t.Helper()
	ctx := context.Background()
	fs := emulators.Require(t, emulators.Firestore)
	fake, sc := emulators.RequireFakeGCS(t, "out")
	srv := pstest.NewServer()
	t.Cleanup(func() { srv.Close() })
	t.Setenv("FIRESTORE_EMULATOR_HOST", fs.Host)
	t.Setenv("PUBSUB_EMULATOR_HOST", srv.Addr)
	t.Setenv("STORAGE_EMULATOR_HOST", fake.URL)
	for k, v := range map[string]string{
		"FOLDCORPUS_PROJECT": "p", "FOLDCORPUS_TOKENIZE_SUBSCRIPTION": "tokenize-pull",
		"FOLDCORPUS_OUTPUT_PREFIX": "gs://out/corpus", "FOLDCORPUS_LEDGER_COLLECTION": "runs",
		"FOLDCORPUS_TOKENIZE_WEIGHTS": "gs://out/corpus/models/bio2token.ckpt",
		"FOLDCORPUS_TOKENIZE_RUNGS":   "1", "FOLDCORPUS_TOKENIZE_DEVICES": "2",
		"FOLDCORPUS_TOKENIZE_FLUSH_AFTER": "300ms", "FOLDCORPUS_LOG_LEVEL": "info",
	} {
		t.Setenv(k, v)
	}
	e := &tpujobEnv{srv: srv, store: gcs.New(sc, gcs.Options{})}

	w, err := b2t.RandomWeights(smallB2T, 11)
	if err != nil {
		t.Fatal(err)
	}
	var ckpt bytes.Buffer
	if err := b2t.WriteCheckpoint(&ckpt, w, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Create(ctx, "gs://out/corpus/models/bio2token.ckpt", ckpt.Bytes()); err != nil {
		t.Fatal(err)
	}
	backend, err := neural.NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	if e.enc, err = neural.NewEncoder(backend, w); err != nil {
		t.Fatal(err)
	}

	pc, err := pubsub.NewClient(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	if err := emulators.CreateTopics(ctx, pc, "p", "tokenize"); err != nil {
		t.Fatal(err)
	}
	if err := emulators.Subscribe(ctx, pc, "p", emulators.Subscription{ID: "tokenize-pull", Topic: "tokenize"}); err != nil {
		t.Fatal(err)
	}
	e.pub = pc.Publisher("tokenize")
	t.Cleanup(e.pub.Stop)

	fc, err := firestore.NewClient(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fc.Close() })
	e.ledger = firestoreledger.New(fc, firestoreledger.Options{Collection: "runs"})
	return e
}

// stage writes one shard's staged rows (n atoms each) and returns its
// request.
func (e *tpujobEnv) stage(t *testing.T, run string, shard, total int, atoms []int) (tpujob.Request, []tpujob.StagedRow) {
	t.Helper()
	var rows []tpujob.StagedRow
	for i, n := range atoms {
		in := synth.Backbone(rand.New(rand.NewPCG(uint64(shard), uint64(i))), n, "ALA", 6)
		id := fmt.Sprintf("AF-%d-%d", shard, i)
		data, err := json.Marshal(in) // bio2token-v2's staged encoding
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, tpujob.StagedRow{EntryID: id, Structure: "gs://in/" + id + ".cif", Passthrough: []any{int64(i)}, Input: data})
	}
	req := tpujob.Request{RunID: run, Shard: shard, Total: total, Format: "bio2token-v2",
		Staged: fmt.Sprintf("gs://out/staging/%s/%d.json.gz", run, shard),
		Output: fmt.Sprintf("gs://out/corpus/%s/%05d.parquet", run, shard)}
	st := &tpujob.Staged{Accounting: corpus.Accounting{RowsIn: int64(len(rows))},
		Passthrough: []format.Column{{Name: "rank", Type: format.Int64, Nullable: true}}, Rows: rows}
	if err := tpujob.Stage(context.Background(), e.store, req.Staged, st); err != nil {
		t.Fatal(err)
	}
	return req, rows
}

func (e *tpujobEnv) publish(t *testing.T, req tpujob.Request) string {
	t.Helper()
	data, _ := json.Marshal(req)
	id, err := e.pub.Publish(context.Background(), &pubsub.Message{Data: data,
		Attributes: map[string]string{"run": req.RunID, "shard": strconv.Itoa(req.Shard)}}).Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *tpujobEnv) message(id string) (acks, deliveries int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if m := e.srv.Message(id); m != nil {
		return m.Acks, m.Deliveries
	}
	return 0, 0
}

func (e *tpujobEnv) shard(t *testing.T, run string, i int) ledger.Shard {
	t.Helper()
	shards, err := e.ledger.Shards(context.Background(), run)
	if err != nil || len(shards) <= i {
		t.Fatalf("shards of %s: %v (%d)", run, err, len(shards))
	}
	return shards[i]
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// A wait, not a timed assertion: a restarted job builds its encoder
	// before its first batch, which took over 20 s under CI's load (and
	// CI has run 4-10x slower than on a quiet day).
	// Polled every 50 ms: the Firestore emulator shares CI's two cores.
	deadline := time.Now().Add(5 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			// Where each call stands, for the next time it happens.
			var stacks bytes.Buffer
			_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
			t.Fatalf("timed out waiting until %s; goroutines:\n%s", what, stacks.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkDocs compares a shard's output with the unpadded single-structure
// encoding of its staged rows.
func (e *tpujobEnv) checkDocs(t *testing.T, req tpujob.Request, rows []tpujob.StagedRow) {
	t.Helper()
	var got []string
	err := corpus.Read(context.Background(), e.store, req.Output, []string{corpus.EntryID, corpus.Document, "rank"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			got = append(got, v[1].(string))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("shard %d: %d documents, want %d", req.Shard, len(got), len(rows))
	}
	for i, r := range rows {
		in, err := fb2t.DecodeAdapted(r.Input)
		if err != nil {
			t.Fatal(err)
		}
		codes, err := e.enc.Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := b2t.Assemble(r.EntryID, in, codes)
		if err != nil {
			t.Fatal(err)
		}
		if got[i] != want.Text {
			t.Errorf("shard %d row %d: document differs from the single-structure encoding", req.Shard, i)
		}
	}
}

// TestTPUJobCommand runs `foldcorpus tpujob` from its environment against
// the Firestore emulator, pstest and fake-gcs-server: a request becomes a
// done shard with its documents; SIGTERM (ctx cancelled) while a shard
// waits for its batch stops the pulls but finishes that shard (done,
// acked), leaving a later request untouched; with no drain time the shard
// in flight is released to pending and nacked, and a restarted job
// finishes it.
func TestTPUJobCommand(t *testing.T) {
	e := newTPUJobEnv(t)
	ctx := context.Background()
	const run = "gs://in/m.parquet#1"
	if err := e.ledger.CreateRun(ctx, ledger.Run{ID: run, Manifest: "gs://in/m.parquet", Format: "bio2token-v2", Output: "gs://out/corpus/r", Shards: 4}); err != nil {
		t.Fatal(err)
	}
	start := func(args ...string) (context.CancelFunc, chan error) {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- runTPUJob(cctx, args) }()
		return cancel, done
	}
	t0 := time.Now()

	// 1. A request in, documents out.
	cancel, done := start("-drain", "20s")
	req0, rows0 := e.stage(t, run, 0, 4, []int{40, 120, 7})
	id0 := e.publish(t, req0)
	waitUntil(t, "shard 0 is acked", func() bool { a, _ := e.message(id0); return a > 0 })
	if s := e.shard(t, run, 0); s.Status != ledger.Done || s.Counts.DocsOut != 3 || s.Output != req0.Output || s.SHA256 == "" {
		t.Errorf("shard 0 after the job: %+v", s)
	}
	e.checkDocs(t, req0, rows0)

	// 2. SIGTERM while shard 1 waits for its batch: it still finishes.
	req1, rows1 := e.stage(t, run, 1, 4, []int{64, 9})
	id1 := e.publish(t, req1)
	waitUntil(t, "shard 1 is claimed", func() bool { return e.shard(t, run, 1).Status == ledger.Running })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("tpujob after SIGTERM: %v", err)
	}
	if a, _ := e.message(id1); a == 0 || e.shard(t, run, 1).Status != ledger.Done {
		t.Errorf("shard 1 in flight at SIGTERM: acks %d, ledger %+v", a, e.shard(t, run, 1))
	}
	e.checkDocs(t, req1, rows1)
	req2, _ := e.stage(t, run, 2, 4, []int{12})
	id2 := e.publish(t, req2)
	time.Sleep(200 * time.Millisecond)
	if _, d := e.message(id2); d != 0 {
		t.Errorf("a request published after the job stopped was delivered %d times", d)
	}

	// 3. No drain: the shard in flight is released and nacked; a restarted
	// job finishes it and the waiting one. This job waits an hour for a
	// partial batch, so the shard is still waiting when it is stopped,
	// however slow the machine (with the 300 ms window it could finish
	// between the claim and the cancel).
	t.Setenv("FOLDCORPUS_TOKENIZE_FLUSH_AFTER", "1h")
	cancel, done = start("-drain", "0s")
	waitUntil(t, "shard 2 is claimed", func() bool { return e.shard(t, run, 2).Status == ledger.Running })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("tpujob after SIGTERM: %v", err)
	}
	s2 := e.shard(t, run, 2)
	if a, _ := e.message(id2); a != 0 || s2.Status != ledger.Pending || !strings.Contains(s2.LastError, "context canceled") {
		t.Errorf("shard 2 interrupted without drain: acks %d, ledger %+v", a, s2)
	}
	if _, err := e.store.ReadAll(ctx, req2.Output); err == nil {
		t.Error("the interrupted shard's output was written")
	}
	t.Setenv("FOLDCORPUS_TOKENIZE_FLUSH_AFTER", "300ms")
	cancel, done = start()
	waitUntil(t, "shard 2 is done after the restart", func() bool { return e.shard(t, run, 2).Status == ledger.Done })
	waitUntil(t, "shard 2's redelivery is acked", func() bool { a, _ := e.message(id2); return a > 0 })
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if s := e.shard(t, run, 2); s.Attempts != 2 {
		t.Errorf("shard 2 attempts %d, want 2", s.Attempts)
	}
	t.Logf("tpujob command scenario: %.1f s after the emulators started", time.Since(t0).Seconds())
}
