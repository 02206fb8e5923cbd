package emulatortests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// TestDeployLayout builds the main the Go buildpack generates for this
// repository (the root package is named functions and ./functions exists,
// so it blank-imports <module>/functions, then calls funcframework.Start;
// see buildpackPackage), serves every target
// from one process (no FUNCTION_TARGET: each at /NAME), and drives both
// entry points over HTTP as Eventarc and a Pub/Sub push subscription would:
// a storage finalized CloudEvent to /Planner, then the published shard
// message as a standard push request to /ShardFn.
func TestDeployLayout(t *testing.T) {
	dir, gs := afdbGolden(t)
	gs = gs[:3]
	s := newStack(t, stackOpts{noFunctions: true})
	s.subscribe("pull", shardTopic, "", nil)
	p := startFn(t, functionsBinary(t), s.env, "", 0)

	// The generated main's own handlers answer too.
	resp, err := http.Get(p.url() + "/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /robots.txt = %d, want 404 from the generated main", resp.StatusCode)
	}

	rows := s.uploadStructures(dir, gs, "")
	// The manifest goes to a bucket without notifications: only our event
	// starts the run.
	runID := s.uploadManifestTo(dataBucket, "runs/deploy.parquet", rows)
	gen := runID[strings.LastIndex(runID, "#")+1:]
	postCloudEvent(t, p.url()+"/Planner", "google.cloud.storage.object.v1.finalized", "deploy-1",
		map[string]any{"bucket": dataBucket, "name": "runs/deploy.parquet", "generation": gen, "size": "1"})
	msgs := s.pullAll("pull", 1, 30*time.Second)
	m := msgs[0].Message
	if m.Attributes["run"] != runID || m.Attributes["shard"] != "0" {
		t.Fatalf("published attributes %v, want run %s shard 0", m.Attributes, runID)
	}
	push, _ := json.Marshal(map[string]any{
		"message": map[string]any{"data": m.Data, "attributes": m.Attributes, "messageId": m.MessageId,
			"publishTime": time.Now().UTC().Format(time.RFC3339Nano)},
		"subscription": s.sub("pull"),
	})
	resp, err = http.Post(p.url()+"/ShardFn", "application/json", bytes.NewReader(push))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("push to /ShardFn: HTTP %d\n%s", resp.StatusCode, p.tail(20))
	}
	shards, err := s.ledger.Shards(s.ctx, runID)
	if err != nil || len(shards) != 1 || shards[0].Status != ledger.Done {
		t.Fatalf("shards = %+v, %v; want one done\n%s", shards, err, p.tail(20))
	}
	docs, _ := s.outputs(shards)
	checkGolden(t, docs, gs)
	for _, want := range []string{`"severity":"INFO"`, `"message":"shard done"`, `"run":"` + runID + `"`, `"logging.googleapis.com/trace":"projects/` + s.project + `/traces/0af7651916cd43dd8448eb211c80319c"`} {
		if !strings.Contains(p.log.String(), want) {
			t.Errorf("function log lacks %s", want)
		}
	}
}
