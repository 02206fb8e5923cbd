package functions

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	pubsubpb "cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/cloudlog"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/inprocess"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
	"github.com/foldcorpus/foldcorpus/shardfn"
	"github.com/foldcorpus/foldcorpus/tpujob"
)

// TestNeuralShardHandoff: a bio2token-v2 shard message goes through ShardFn
// (fetch, parse, adapt, stage, publish to the tokenize topic; the shard
// left pending, unclaimed), then the tpujob pulls the request from a pstest
// subscription, tokenizes, writes the parquet and marks the shard done.
// The output equals, byte for byte, the one ShardFn writes when it runs the
// format inline (no tokenize topic: what the local runner does), and a
// duplicate shard delivery after that is a no-op.
func TestNeuralShardHandoff(t *testing.T) {
	files := testcorpus.Files(t, "afdb")[:4]
	fx := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// A small generated model, written as a checkpoint the format loads.
	w, err := b2t.RandomWeights(b2t.Config{DModel: 16, DInner: 32, DState: 4, DTRank: 2, DConv: 4, Layers: 2}, 5)
	if err != nil {
		t.Fatal(err)
	}
	var ckpt bytes.Buffer
	if err := b2t.WriteCheckpoint(&ckpt, w, nil); err != nil {
		t.Fatal(err)
	}
	weights := filepath.Join(t.TempDir(), "b2t.ckpt")
	if err := os.WriteFile(weights, ckpt.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	// The manifest: 4 AFDB structures with a passthrough column.
	var rows [][]any
	for i, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := "cif/" + filepath.Base(path)
		fx.srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "in", Name: name}, Content: data})
		rows = append(rows, []any{strings.TrimSuffix(filepath.Base(path), ".cif"), "gs://in/" + name, int64(10 * i)})
	}
	cols := []format.Column{{Name: "entry_id", Type: format.String}, {Name: "gcs_uri", Type: format.String}, {Name: "rank", Type: format.Int64}}
	mdata, err := manifest.Encode(cols, rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	fx.srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "manifests", Name: "b2t.parquet"}, Content: mdata})
	const runID = "gs://manifests/b2t.parquet#1"
	msg := func(output, weights string) queue.ShardMessage {
		return queue.ShardMessage{RunID: runID, Shard: 0, Total: 1, Manifest: "gs://manifests/b2t.parquet", Format: fb2t.Name,
			Output: output, Columns: []string{"entry_id", "gcs_uri", "rank"}, URIColumn: "gcs_uri",
			Options: map[string]string{fb2t.OptWeights: weights}}
	}
	run := ledger.Run{ID: runID, Manifest: "gs://manifests/b2t.parquet", Format: fb2t.Name, Output: "gs://out/corpus/b2t", Shards: 1}

	// 1. Inline: no tokenize topic configured.
	// Both runs name the checkpoint as a cloud run spec does (gs://; the
	// output records the options). The inline run needs the encoder in the
	// process (inprocess.New, reading a local copy of the checkpoint); the
	// deployed functions have none (registry.New) and hand off.
	const remoteWeights = "gs://models/b2t.ckpt"
	inlineMsg := msg("gs://out/corpus/b2t/inline/part-00000-of-00001.parquet", remoteWeights)
	fx.s.deps.NewFormat = func(name string, opts map[string]string) (format.Format, error) {
		local := maps.Clone(opts)
		local[fb2t.OptWeights] = weights
		return inprocess.New(name, local)
	}
	if err := fx.led.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := fx.s.ShardFn(ctx, published(t, inlineMsg, fx.now)); err != nil {
		t.Fatalf("inline ShardFn = %v", err)
	}

	// 2. Handed off: a second deployment (its own ledger) with a tokenize topic.
	srv := pstest.NewServer()
	defer srv.Close()
	pc, err := pubsub.NewClient(ctx, "p", option.WithEndpoint(srv.Addr), option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.TopicAdminClient.CreateTopic(ctx, &pubsubpb.Topic{Name: "projects/p/topics/tokenize"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pc.SubscriptionAdminClient.CreateSubscription(ctx, &pubsubpb.Subscription{
		Name: "projects/p/subscriptions/tokenize-pull", Topic: "projects/p/topics/tokenize", AckDeadlineSeconds: 60,
	}); err != nil {
		t.Fatal(err)
	}
	tok := NewPubSubTokenize(pc, "tokenize")
	defer tok.Stop()
	led2, err := localledger.Open(filepath.Join(t.TempDir(), "ledger2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer led2.Close()
	if err := led2.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s2 := New(fx.s.cfg, Deps{Store: fx.store, Ledger: led2, Publisher: fx.pub, Tokenize: tok, Log: cloudlog.New(&logs, slog.LevelDebug, "p"), Now: func() time.Time { return fx.now }})
	// As deployed: no encoder in the function; the tokenize job tokenizes
	// with the same weights w.
	stagedMsg := msg("gs://out/corpus/b2t/staged/part-00000-of-00001.parquet", remoteWeights)
	if err := s2.ShardFn(ctx, published(t, stagedMsg, fx.now)); err != nil {
		t.Fatalf("handing-off ShardFn = %v", err)
	}
	const wantStaged = "gs://out/staging/b2t/staged/part-00000-of-00001.staged.json.gz"
	if sh, _ := led2.Shards(ctx, runID); sh[0].Status != ledger.Pending || !sh[0].Lease.IsZero() || sh[0].LastError != shardfn.LastErrorStaged+wantStaged {
		t.Fatalf("after the hand-off the shard is %+v, want pending, no lease, staged at %s", sh[0], wantStaged)
	}
	if _, err := fx.store.ReadAll(ctx, stagedMsg.Output); err == nil {
		t.Fatal("the handing-off shard function wrote the output itself")
	}
	if _, err := fx.store.ReadAll(ctx, wantStaged); err != nil {
		t.Fatalf("staged object: %v", err)
	}
	if !strings.Contains(logs.String(), `"message":"shard staged for the tokenize job"`) {
		t.Errorf("no staging log line:\n%s", logs.String())
	}

	// 3. The tpujob pulls the request and finishes the shard.
	backend, err := neural.NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := neural.NewEncoder(backend, w)
	if err != nil {
		t.Fatal(err)
	}
	job, err := tpujob.New(tpujob.Config{Devices: 2, Ladder: b2t.Ladder(1), FlushAfter: 50 * time.Millisecond}, enc, fx.store, led2)
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = job.Receive(ctx, pc.Subscriber("tokenize-pull"), 4) }()
	// A wait, not a timed assertion: the job tokenizes on the CPU backend,
	// which on a loaded 2-core machine took over 30 s.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		sh, _ := led2.Shards(ctx, runID)
		if sh[0].Status == ledger.Done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("shard not done 5 minutes after the hand-off: %+v", sh[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	wg.Wait()

	// 4. Same file as the inline run, same ledger counts.
	inlineOut, err := fx.store.ReadAll(context.Background(), inlineMsg.Output)
	if err != nil {
		t.Fatal(err)
	}
	staged, err := fx.store.ReadAll(context.Background(), stagedMsg.Output)
	if err != nil {
		t.Fatal(err)
	}
	docs := func(uri string) []string {
		var out []string
		err := corpus.Read(context.Background(), fx.store, uri, []string{corpus.EntryID, corpus.Document, "rank"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				out = append(out, v[0].(string)+" "+v[1].(string))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	di, ds := docs(inlineMsg.Output), docs(stagedMsg.Output)
	if len(di) != len(files) || !reflect.DeepEqual(di, ds) {
		t.Errorf("documents differ: inline %d, handed off %d", len(di), len(ds))
	}
	if sha256.Sum256(inlineOut) != sha256.Sum256(staged) {
		t.Errorf("output files differ (%d vs %d bytes)", len(inlineOut), len(staged))
	}
	a, _ := fx.led.Shards(context.Background(), runID)
	b, _ := led2.Shards(context.Background(), runID)
	if !reflect.DeepEqual(a[0].Counts, b[0].Counts) || a[0].SHA256 != b[0].SHA256 || b[0].Attempts != 2 {
		t.Errorf("ledgers differ: inline %+v, handed off %+v", a[0], b[0])
	}
	// A duplicate delivery of the shard message is a no-op now.
	if err := s2.ShardFn(context.Background(), published(t, stagedMsg, fx.now)); err != nil {
		t.Fatalf("duplicate ShardFn = %v", err)
	}
	t.Logf("%d documents, %d bytes, identical inline and handed off; tpujob stats %+v", len(di), len(staged), job.Stats())
}

// TestDeadLetterTokenizeRequest: a tokenize request dead-lettered by the
// accelerator job's subscription marks its shard dead_lettered, keeping
// the job's last transient error.
func TestDeadLetterTokenizeRequest(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	const runID = "gs://manifests/b2t.parquet#1"
	if err := fx.led.CreateRun(ctx, ledger.Run{ID: runID, Manifest: "gs://manifests/b2t.parquet", Format: fb2t.Name, Output: "gs://out/corpus/b2t", Shards: 2}); err != nil {
		t.Fatal(err)
	}
	sh, err := fx.led.Claim(ctx, runID, 1, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	sh.Error = "tpujob: injected device failure"
	if err := fx.led.Release(ctx, sh); err != nil {
		t.Fatal(err)
	}
	req := tokenize.Request{RunID: runID, Shard: 1, Total: 2, Format: fb2t.Name, Staged: "gs://out/staging/b2t/1.staged.json.gz", Output: "gs://out/corpus/b2t/1.parquet"}
	data, attrs, err := req.Message()
	if err != nil {
		t.Fatal(err)
	}
	attrs[AttrDeadLetterCount] = "10"
	if err := fx.s.DeadLetter(ctx, pubsubEvent(data, attrs, fx.now)); err != nil {
		t.Fatal(err)
	}
	shards, _ := fx.led.Shards(ctx, runID)
	if s := shards[1]; s.Status != ledger.DeadLettered || !strings.Contains(s.Error, "after 10 delivery attempts; last error: tpujob: injected device failure") {
		t.Errorf("shard after a dead-lettered tokenize request: %+v", s)
	}
	if shards[0].Status != ledger.Pending {
		t.Errorf("the other shard changed: %+v", shards[0])
	}
}
