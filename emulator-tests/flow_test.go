package emulatortests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// TestWholeFlow: a manifest lands in the bucket; its finalize notification
// reaches the Planner through Pub/Sub push; the shard messages are pushed
// to ShardFn; outputs land in GCS; the Firestore ledger says done; the
// documents equal the golden ones. Then a redelivered finalize event makes
// no new run, and re-uploading the manifest makes a new one.
func TestWholeFlow(t *testing.T) {
	dir, gs := afdbGolden(t)
	s := newStack(t, stackOpts{rowGroupsPerShard: 1})
	rows := s.uploadStructures(dir, gs, "")
	start := time.Now()
	runID := s.uploadManifest("runs/afdb.parquet", rows, 8)
	shards := s.waitSettled(runID, 120*time.Second)
	elapsed := time.Since(start)
	wantShards := (len(rows) + 7) / 8
	if len(shards) != wantShards {
		t.Fatalf("%d shards, want %d (row groups of 8)", len(shards), wantShards)
	}
	for _, sh := range shards {
		if sh.Status != ledger.Done || sh.Attempts != 1 || sh.SHA256 == "" {
			t.Errorf("shard %d: %s after %d attempts (%s)", sh.Index, sh.Status, sh.Attempts, sh.Error)
		}
	}
	docs, objects := s.outputs(shards)
	checkGolden(t, docs, gs)
	run, err := s.ledger.GetRun(s.ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.listObjects(run.Output); len(got) != len(shards) || strings.Join(got, " ") != strings.Join(objects, " ") {
		t.Errorf("objects under the run's output folder = %v, want exactly the shards' outputs %v", got, objects)
	}
	t.Logf("%d rows in %d shards: done in %s through the emulators", len(rows), len(shards), elapsed.Round(time.Millisecond))

	out, code := s.cli("status", "--run", runID)
	if code != 0 || !strings.Contains(out, "COMPLETE") || !strings.Contains(out, fmt.Sprintf("%d done", len(shards))) {
		t.Errorf("status --run exited %d:\n%s", code, out)
	}

	// A redelivered finalize event (same generation, as Eventarc may send)
	// goes straight to the Planner: same run, nothing republished as all
	// shards are done.
	gen := runID[strings.LastIndex(runID, "#")+1:]
	postCloudEvent(t, s.fns["Planner"].url(), "google.cloud.storage.object.v1.finalized", "redelivered-1",
		map[string]any{"bucket": manifestBucket, "name": "runs/afdb.parquet", "generation": gen, "size": "1"})
	if n := runCount(t, s); n != 1 {
		t.Errorf("%d runs after a redelivered finalize event, want 1", n)
	}
	planned := s.fns["Planner"].logRecords("run planned")
	if len(planned) != 2 || planned[1]["published"] != 0.0 || planned[1]["run"] != runID {
		t.Errorf("planner log after redelivery = %v, want a second plan of %s publishing 0 shards", planned, runID)
	}

	// Re-uploading the same manifest is a new run (new generation).
	runID2 := s.uploadManifest("runs/afdb.parquet", rows, 8)
	if runID2 == runID {
		t.Fatalf("re-upload kept run id %s", runID)
	}
	shards2 := s.waitSettled(runID2, 120*time.Second)
	docs2, _ := s.outputs(shards2)
	checkGolden(t, docs2, gs)
	if n := runCount(t, s); n != 2 {
		t.Errorf("%d runs after a re-upload, want 2", n)
	}
	// The first run's shards pin its manifest generation, which the
	// re-upload replaced: a rerun of it refuses instead of reading the new
	// object.
	if out, code := s.cli("rerun", "--run", runID, "--topic", shardTopic); code == 0 || !strings.Contains(out, "no longer exists") {
		t.Errorf("rerun of the overwritten run exited %d, want non-zero saying its manifest generation no longer exists:\n%s", code, out)
	}
}

func runCount(t *testing.T, s *stack) int {
	t.Helper()
	snaps, err := s.fs.Collection("foldcorpus_runs").Documents(s.ctx).GetAll()
	if err != nil {
		t.Fatal(err)
	}
	return len(snaps)
}

// postCloudEvent sends a binary-mode CloudEvent (as Eventarc does) and
// requires a 2xx answer.
func postCloudEvent(t *testing.T, url, typ, id string, data any) {
	t.Helper()
	body, _ := json.Marshal(data)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("ce-specversion", "1.0")
	req.Header.Set("ce-type", typ)
	req.Header.Set("ce-source", "//storage.googleapis.com/projects/_/buckets/"+manifestBucket)
	req.Header.Set("ce-id", id)
	req.Header.Set("ce-time", time.Now().UTC().Format(time.RFC3339))
	req.Header.Set("ce-traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01") // the distributed-tracing extension
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s (%s): HTTP %d", url, typ, resp.StatusCode)
	}
}
