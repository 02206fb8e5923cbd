package emulatortests

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2"
	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// waitFor polls the run's status counts until ok holds.
func (s *stack) waitFor(runID string, timeout time.Duration, what string, ok func(map[ledger.Status]int64, int) bool) {
	s.t.Helper()
	timeout = patient(timeout)
	deadline := time.Now().Add(timeout)
	var last map[ledger.Status]int64
	for time.Now().Before(deadline) {
		if run, err := s.ledger.GetRun(s.ctx, runID); err == nil {
			p, err := s.ledger.Progress(s.ctx, runID)
			if err != nil {
				s.t.Fatal(err)
			}
			last = p
			if ok(p, run.Shards) {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatalf("run %s: not %s after %s (progress %v)", runID, what, timeout, last)
}

func allDone(p map[ledger.Status]int64, n int) bool { return p[ledger.Done] == int64(n) }

// pullAll receives n messages from a pull subscription and acks them.
func (s *stack) pullAll(subID string, n int, timeout time.Duration) []*pubsubpb.ReceivedMessage {
	s.t.Helper()
	var out []*pubsubpb.ReceivedMessage
	deadline := time.Now().Add(patient(timeout))
	for len(out) < n && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		resp, err := s.ps.SubscriptionAdminClient.Pull(ctx, &pubsubpb.PullRequest{Subscription: s.sub(subID), MaxMessages: int32(n - len(out))})
		cancel()
		if err != nil {
			continue
		}
		var ids []string
		for _, m := range resp.ReceivedMessages {
			out = append(out, m)
			ids = append(ids, m.AckId)
		}
		if len(ids) > 0 {
			if err := s.ps.SubscriptionAdminClient.Acknowledge(s.ctx, &pubsubpb.AcknowledgeRequest{Subscription: s.sub(subID), AckIds: ids}); err != nil {
				s.t.Fatal(err)
			}
		}
	}
	if len(out) != n {
		s.t.Fatalf("pulled %d messages from %s, want %d", len(out), subID, n)
	}
	return out
}

func (s *stack) publish(topic string, data []byte, attrs map[string]string) {
	s.t.Helper()
	p := s.ps.Publisher(topic)
	defer p.Stop()
	if _, err := p.Publish(s.ctx, &pubsub.Message{Data: data, Attributes: attrs}).Get(s.ctx); err != nil {
		s.t.Fatal(err)
	}
}

// TestDuplicateDelivery: every shard message is delivered two or three
// times; each shard completes once, the outputs and counts are exact.
func TestDuplicateDelivery(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:12]
	s := newStack(t, stackOpts{rowGroupsPerShard: 1})
	s.subscribe("tee", shardTopic, "", nil) // sees every shard message
	rows := s.uploadStructures(dir, gs, "")
	runID := s.uploadManifest("runs/dup.parquet", rows, 3)
	const shards = 4
	extra := 0
	for _, m := range s.pullAll("tee", shards, 60*time.Second) {
		copies := 1 // delivered twice ...
		if m.Message.Attributes["shard"] == "1" || m.Message.Attributes["shard"] == "3" {
			copies = 2 // ... or 2 (delivered three times)
		}
		for range copies {
			s.publish(shardTopic, m.Message.Data, m.Message.Attributes)
			extra++
		}
	}
	s.waitFor(runID, 60*time.Second, "done", allDone)
	// Every delivery is answered: shards+extra "done" or "already done" lines.
	fn := s.fns["ShardFn"]
	deadline := time.Now().Add(patient(30 * time.Second))
	for time.Now().Before(deadline) && len(fn.logRecords("shard done"))+len(fn.logRecords("shard already done; duplicate delivery acknowledged")) < shards+extra {
		time.Sleep(200 * time.Millisecond)
	}
	if d, a := len(fn.logRecords("shard done")), len(fn.logRecords("shard already done; duplicate delivery acknowledged")); d != shards || d+a != shards+extra {
		t.Errorf("%d completions and %d duplicate acks, want %d and %d", d, a, shards, extra)
	}
	sh, _ := s.ledger.Shards(s.ctx, runID)
	var rowsIn int64
	for _, x := range sh {
		rowsIn += x.Counts.RowsIn
		if x.Attempts != 1 {
			t.Errorf("shard %d: %d attempts, want 1 (duplicates never re-run a shard)", x.Index, x.Attempts)
		}
	}
	if rowsIn != int64(len(rows)) {
		t.Errorf("rows_in %d, want %d", rowsIn, len(rows))
	}
	docs, objects := s.outputs(sh)
	checkGolden(t, docs, gs)
	run, _ := s.ledger.GetRun(s.ctx, runID)
	if got := s.listObjects(run.Output); len(got) != shards || len(objects) != shards {
		t.Errorf("output objects %v, want %d", got, shards)
	}
}

// TestKilledMidShard: the ShardFn instance is killed (SIGKILL) in the middle
// of a shard; no partial object appears; the redelivery after the lease
// expires completes the shard once.
func TestKilledMidShard(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:8]
	s := newStack(t, stackOpts{lease: 3 * time.Second, fetchConcurrency: 1})
	rows := s.uploadStructures(dir, gs, "")
	fn := s.fns["ShardFn"]
	var reads atomic.Int32
	killed := make(chan struct{})
	s.proxy.set(func(w http.ResponseWriter, r *http.Request) bool {
		if !isObjectGet(r, "cif/") {
			return false
		}
		if reads.Add(1) == 4 {
			fn.kill()
			close(killed)
			http.Error(w, "instance gone", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	runID := s.uploadManifest("runs/kill.parquet", rows, 0)
	select {
	case <-killed:
	case <-time.After(patient(60 * time.Second)):
		t.Fatal("the shard never reached its 4th object read")
	}
	run, err := s.ledger.GetRun(s.ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if got := s.listObjects(run.Output); len(got) != 0 {
		t.Fatalf("objects after the kill: %v, want none", got)
	}
	sh, _ := s.ledger.Shards(s.ctx, runID)
	if sh[0].Status != ledger.Running {
		t.Fatalf("shard after the kill: %s, want running (claimed, lease pending)", sh[0].Status)
	}
	fn.start() // a new instance; Pub/Sub redelivers to it
	s.waitFor(runID, 60*time.Second, "done", allDone)
	sh, _ = s.ledger.Shards(s.ctx, runID)
	if sh[0].Attempts != 2 {
		t.Errorf("attempts = %d, want 2 (killed, then completed once)", sh[0].Attempts)
	}
	if n := len(fn.logRecords("shard done")); n != 1 {
		t.Errorf("%d completions logged, want 1", n)
	}
	docs, _ := s.outputs(sh)
	checkGolden(t, docs, gs)
	if got := s.listObjects(run.Output); len(got) != 1 {
		t.Errorf("objects = %v, want exactly one", got)
	}
}

// truncated returns the first part of a file, cut in the middle of an
// atom_site row, and checks that the reader rejects it.
func truncated(t *testing.T, data []byte) []byte {
	i := bytes.Index(data, []byte("\nATOM "))
	if i < 0 {
		t.Fatal("no ATOM record")
	}
	cut := i + (len(data)-i)/2
	for data[cut] != ' ' {
		cut++
	}
	out := append([]byte(nil), data[:cut]...)
	if _, err := mmcif.Read(out); err == nil {
		t.Fatal("the truncated file parses; the poison row test needs one that does not")
	}
	return out
}

// TestPoisonRowThenRerunByHand: two truncated mmCIF files in one shard fail
// it naming both (entry ids, in the ledger and in status), the other shards
// are done, the run is not complete and status exits non-zero; after the
// objects are fixed, running with the real gcloud exactly the command that
// `rerun --gcloud` prints (the documented hand rerun) completes it. The
// manifest's name holds "," and "=", which the command's --attribute must
// carry through gcloud's KEY=VALUE,... syntax.
func TestPoisonRowThenRerunByHand(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:9]
	s := newStack(t, stackOpts{rowGroupsPerShard: 1})
	rows := s.uploadStructures(dir, gs, "")
	poisons := []int{3, 5} // rows 0 and 2 of shard 1 (row groups of 3)
	var fixes []func()
	for _, i := range poisons {
		good, err := os.ReadFile(filepath.Join(dir, gs[i].File))
		if err != nil {
			t.Fatal(err)
		}
		name := "cif/" + filepath.Base(gs[i].File)
		s.put(dataBucket, name, truncated(t, good), "")
		fixes = append(fixes, func() { s.put(dataBucket, name, good, "") })
	}
	runID := s.uploadManifest("runs/poison,v=2.parquet", rows, 3)
	shards := s.waitSettled(runID, 60*time.Second)
	for _, sh := range shards {
		want := ledger.Done
		if sh.Index == 1 {
			want = ledger.Failed
			if sh.EntryID != gs[poisons[0]].EntryID || sh.Error == "" {
				t.Errorf("poisoned shard: entry %q error %q, want entry %s with its cause", sh.EntryID, sh.Error, gs[poisons[0]].EntryID)
			}
			if len(sh.BadRows) != len(poisons) || sh.BadRows[0].EntryID != gs[poisons[0]].EntryID || sh.BadRows[1].EntryID != gs[poisons[1]].EntryID ||
				sh.BadRows[0].Stage != "parse" || sh.BadRows[1].Row != int64(poisons[1]) {
				t.Errorf("poisoned shard's bad rows %+v, want both poisoned rows (manifest rows 3 and 5, parse)", sh.BadRows)
			}
		}
		if sh.Status != want {
			t.Errorf("shard %d: %s, want %s", sh.Index, sh.Status, want)
		}
	}
	out, code := s.cli("status", "--run", runID)
	if code == 0 || !strings.Contains(out, "NOT COMPLETE") || !strings.Contains(out, "failed shard 00001") {
		t.Errorf("status exited %d, want non-zero naming shard 1:\n%s", code, out)
	}
	for _, i := range poisons {
		if !strings.Contains(out, "entry "+gs[i].EntryID+": parse: ") {
			t.Errorf("status does not name the bad row %s:\n%s", gs[i].EntryID, out)
		}
	}

	// Rerun by hand: rerun --gcloud prints one command per shard not done.
	out, code = s.cli("rerun", "--run", runID, "--topic", shardTopic, "--gcloud")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 1 {
		t.Fatalf("rerun --gcloud exited %d with %d commands, want 1:\n%s", code, len(lines), out)
	}
	if !strings.HasPrefix(lines[0], "gcloud pubsub topics publish ") {
		t.Fatalf("rerun --gcloud printed %q", lines[0])
	}
	for _, fix := range fixes { // fix the objects
		fix()
	}
	if out := s.gcloudShell(lines[0]); !strings.Contains(out, "messageIds:") {
		t.Fatalf("gcloud: %s", out)
	}
	s.waitFor(runID, 60*time.Second, "done", allDone)
	out, code = s.cli("status", "--run", runID)
	if code != 0 || !strings.Contains(out, "COMPLETE") {
		t.Errorf("status after the hand rerun exited %d:\n%s", code, out)
	}
	shards, _ = s.ledger.Shards(s.ctx, runID)
	docs, _ := s.outputs(shards)
	checkGolden(t, docs, gs)
}

// TestTransientStorageErrors: every structure read fails once with 503
// (the storage client retries it), and the first output uploads fail with
// 503 until the shard function gives up and returns an error (Pub/Sub
// redelivers); the shard is done on its second attempt with exact output.
func TestTransientStorageErrors(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:6]
	s := newStack(t, stackOpts{})
	rows := s.uploadStructures(dir, gs, "")
	var mu sync.Mutex
	seen := map[string]bool{}
	var readFaults, uploadFaults atomic.Int32
	s.proxy.set(func(w http.ResponseWriter, r *http.Request) bool {
		if isObjectGet(r, "cif/") {
			mu.Lock()
			first := !seen[r.URL.Path]
			seen[r.URL.Path] = true
			mu.Unlock()
			if first {
				readFaults.Add(1)
				http.Error(w, "injected", http.StatusServiceUnavailable)
				return true
			}
		}
		if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/upload/") && uploadFaults.Load() < 4 {
			uploadFaults.Add(1)
			io.Copy(io.Discard, r.Body)
			http.Error(w, "injected", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	runID := s.uploadManifest("runs/transient.parquet", rows, 0)
	s.waitFor(runID, 90*time.Second, "done", allDone)
	sh, _ := s.ledger.Shards(s.ctx, runID)
	if sh[0].Attempts != 2 {
		t.Errorf("attempts = %d, want 2 (one redelivery after the upload failures)", sh[0].Attempts)
	}
	if readFaults.Load() < int32(len(rows)) || uploadFaults.Load() != 4 {
		t.Errorf("injected %d read faults and %d upload faults, want >= %d and 4", readFaults.Load(), uploadFaults.Load(), len(rows))
	}
	if n := len(s.fns["ShardFn"].logRecords("shard failed transiently; will be redelivered")); n != 1 {
		t.Errorf("%d transient failures logged, want 1", n)
	}
	docs, _ := s.outputs(sh)
	checkGolden(t, docs, gs)
}

// TestExhaustedAttempts: uploads always fail; after the subscription's 5
// delivery attempts the message goes to the dead-letter topic, the
// DeadLetter function marks the shard dead-lettered, and status shows it.
// When storage works again, `foldcorpus rerun` completes the run.
func TestExhaustedAttempts(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:2]
	s := newStack(t, stackOpts{maxAttempts: 5})
	rows := s.uploadStructures(dir, gs, "")
	s.proxy.set(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/upload/") {
			io.Copy(io.Discard, r.Body)
			http.Error(w, "injected", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	runID := s.uploadManifest("runs/exhausted.parquet", rows, 0)
	s.waitFor(runID, 120*time.Second, "dead-lettered", func(p map[ledger.Status]int64, n int) bool { return p[ledger.DeadLettered] == int64(n) })
	sh, _ := s.ledger.Shards(s.ctx, runID)
	if sh[0].Attempts != 5 || !strings.Contains(sh[0].Error, "dead-lettered after 5 delivery attempts") || !strings.Contains(sh[0].Error, "503") {
		t.Errorf("shard = attempts %d, error %q; want 5 attempts, the dead-letter cause and the last error", sh[0].Attempts, sh[0].Error)
	}
	out, code := s.cli("status", "--run", runID)
	if code == 0 || !strings.Contains(out, "dead_lettered shard 00000") || !strings.Contains(out, "1 dead-lettered") {
		t.Errorf("status exited %d, want non-zero showing the dead-lettered shard:\n%s", code, out)
	}

	// Once storage recovers, `rerun` publishes the shards not done.
	s.proxy.set(nil)
	out, code = s.cli("rerun", "--run", runID, "--topic", shardTopic)
	if code != 0 || !strings.Contains(out, "published 1 shard messages") {
		t.Fatalf("rerun exited %d:\n%s", code, out)
	}
	s.waitFor(runID, 60*time.Second, "done", allDone)
	if out, code = s.cli("status", "--run", runID); code != 0 {
		t.Errorf("status after rerun exited %d:\n%s", code, out)
	}
	sh, _ = s.ledger.Shards(s.ctx, runID)
	docs, _ := s.outputs(sh)
	checkGolden(t, docs, gs)
}

// TestGzipTranscoded: structures stored with Content-Encoding: gzip. A read
// of the size GCS reports truncates them silently; the pipeline reads them
// whole and writes the golden documents.
func TestGzipTranscoded(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:6]
	s := newStack(t, stackOpts{})
	rows := s.uploadStructures(dir, gs, "gzip")

	plain, err := os.ReadFile(filepath.Join(dir, gs[0].File))
	if err != nil {
		t.Fatal(err)
	}
	obj := s.gcsc.Bucket(dataBucket).Object("cif/" + filepath.Base(gs[0].File))
	attrs, err := obj.Attrs(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := obj.NewReader(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, attrs.Size)
	n, err := io.ReadFull(r, buf)
	r.Close()
	if err != nil || n >= len(plain) || !bytes.Equal(buf[:n], plain[:n]) {
		t.Fatalf("size-based read: %d bytes, %v; want a silent truncation of the %d-byte file", n, err, len(plain))
	}
	t.Logf("size-based read of %s: %d of %d bytes (%.0f%%), no error", gs[0].File, n, len(plain), 100*float64(n)/float64(len(plain)))
	whole, err := s.store.ReadAll(s.ctx, "gs://"+dataBucket+"/cif/"+filepath.Base(gs[0].File))
	if err != nil || !bytes.Equal(whole, plain) {
		t.Fatalf("ReadAll: %d bytes, %v; want all %d", len(whole), err, len(plain))
	}

	runID := s.uploadManifest("runs/gzip.parquet", rows, 0)
	s.waitFor(runID, 60*time.Second, "done", allDone)
	sh, _ := s.ledger.Shards(s.ctx, runID)
	docs, _ := s.outputs(sh)
	checkGolden(t, docs, gs)
}
