package emulatortests

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/pubsubq"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// gcsRequestsSince returns fake-gcs-server's request log lines written
// after offset.
func (s *stack) gcsRequestsSince(offset int) []string {
	var out []string
	for _, l := range strings.Split(s.gcsLog.String()[offset:], "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestAllowListAndSizeCap runs the deployed wiring of FOLDCORPUS_INPUT_BUCKETS
// and FOLDCORPUS_MAX_OBJECT_BYTES (functions/server.go) through the real
// entry points. Manifest rows naming a bucket outside the allow-list (which
// exists and holds the object), a file:// and an http:// URI, and an object
// over the size cap each fail their own shard with the entry id and the
// cause, next to a good row's shard that is done; fake-gcs-server's request
// log shows no request for the foreign bucket, and the http:// server is
// never called. Then shard messages that name a foreign manifest, an output
// outside the output prefix, a local path, or no valid body at all are
// acknowledged without reading or writing anything: no storage request, and
// the shard they name is not claimed.
func TestAllowListAndSizeCap(t *testing.T) {
	const capBytes = 100_000
	s := newStack(t, stackOpts{rowGroupsPerShard: 1, extraBuckets: []string{"foreign"},
		env: []string{fmt.Sprintf("FOLDCORPUS_MAX_OBJECT_BYTES=%d", capBytes)}})
	s.subscribe("tee", shardTopic, "", nil) // sees every shard message
	good := synth.Make(synth.SampleSeed, 0, 40, 90).CIF
	if len(good) >= capBytes {
		t.Fatalf("the good structure has %d bytes, over the %d cap", len(good), capBytes)
	}
	// Over the cap, yet a structure that parses (padding in comment lines):
	// only the cap can fail it.
	big := append(append([]byte(nil), good...), bytes.Repeat([]byte("# padding\n"), capBytes/10+1)...)
	s.put(dataBucket, "synth/ok.cif", good, "")
	s.put(dataBucket, "synth/big.cif", big, "")
	s.put("foreign", "cif/x.cif", good, "")
	var httpHits atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpHits.Add(1)
		w.Write(good)
	}))
	defer web.Close()
	rows := [][]any{
		{"AL-OK", "gs://" + dataBucket + "/synth/ok.cif"},
		{"AL-FOREIGN", "gs://foreign/cif/x.cif"},
		{"AL-FILE", "file:///etc/hostname"},
		{"AL-HTTP", web.URL + "/x.cif"},
		{"AL-BIG", "gs://" + dataBucket + "/synth/big.cif"},
	}
	wantErr := []string{"", `bucket "foreign" of "gs://foreign/cif/x.cif" is not an allowed input bucket`,
		`not a gs:// URI: "file:///etc/hostname"`, `not a gs:// URI: "` + web.URL + `/x.cif"`, fmt.Sprintf("object larger than the cap of %d bytes", capBytes)}
	offset := len(s.gcsLog.String())
	runID := s.uploadManifest("runs/allow.parquet", rows, 1)
	shards := s.waitSettled(runID, 90*time.Second)
	for i, sh := range shards {
		switch {
		case i == 0 && sh.Status != ledger.Done:
			t.Errorf("shard 0 (good row): %s (%s), want done", sh.Status, sh.Error)
		case i > 0 && (sh.Status != ledger.Failed || sh.EntryID != rows[i][0] || !strings.Contains(sh.Error, wantErr[i])):
			t.Errorf("shard %d: %s, entry %q, error %q; want failed, entry %s, error naming %q", i, sh.Status, sh.EntryID, sh.Error, rows[i][0], wantErr[i])
		}
	}
	reqs := s.gcsRequestsSince(offset)
	readOK := false
	for _, l := range reqs {
		if strings.Contains(l, "foreign") {
			t.Errorf("fake-gcs-server was asked for the foreign bucket: %s", l)
		}
		readOK = readOK || strings.Contains(l, "synth/ok.cif") || strings.Contains(l, "synth%2Fok.cif")
	}
	if !readOK {
		t.Fatalf("the request log does not show the good row's read, so it cannot show the foreign one's absence:\n%s", strings.Join(reqs, "\n"))
	}
	if n := httpHits.Load(); n != 0 {
		t.Errorf("the http:// server was called %d times", n)
	}

	// Invalid shard messages, built from the planner's message for shard 2
	// (failed above, so a message that got through would claim it again).
	var tmpl []byte
	var tmplAttrs map[string]string
	for _, m := range s.pullAll("tee", len(rows), 60*time.Second) {
		if m.Message.Attributes["shard"] == "2" {
			tmpl, tmplAttrs = m.Message.Data, m.Message.Attributes
		}
	}
	msg, err := pubsubq.Decode(tmpl, tmplAttrs)
	if err != nil {
		t.Fatal(err)
	}
	s.put("foreign", "m.parquet", s.read(manifestBucket, "runs/allow.parquet"), "")
	before, _ := s.ledger.Shards(s.ctx, runID)
	offset = len(s.gcsLog.String())
	bad := []func(){
		func() { m := msg; m.Manifest, m.ManifestGeneration = "gs://foreign/m.parquet", 0; s.publishShard(m) },
		func() { m := msg; m.Output = "gs://" + outBucket + "/elsewhere/p.parquet"; s.publishShard(m) },
		func() { m := msg; m.Manifest, m.ManifestGeneration = "file:///etc/passwd", 0; s.publishShard(m) },
		func() { s.publish(shardTopic, []byte("{"), tmplAttrs) },
	}
	for _, b := range bad {
		b()
	}
	fn := s.fns["ShardFn"]
	deadline := time.Now().Add(patient(60 * time.Second))
	for len(fn.logRecords("invalid shard message; acknowledged")) < len(bad) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if n := len(fn.logRecords("invalid shard message; acknowledged")); n != len(bad) {
		t.Errorf("%d invalid messages acknowledged as invalid, want %d", n, len(bad))
	}
	time.Sleep(time.Second) // anything a message set off would show by now
	if reqs := s.gcsRequestsSince(offset); len(reqs) > 0 {
		t.Errorf("invalid messages caused storage requests:\n%s", strings.Join(reqs, "\n"))
	}
	after, _ := s.ledger.Shards(s.ctx, runID)
	if a, b := after[2], before[2]; a.Status != ledger.Failed || a.Attempts != b.Attempts {
		t.Errorf("shard 2 after the invalid messages: %s after %d attempts, want failed after %d (never claimed)", a.Status, a.Attempts, b.Attempts)
	}
	if got := s.listObjects("gs://" + outBucket + "/elsewhere"); len(got) != 0 {
		t.Errorf("objects outside the output prefix: %v", got)
	}
}

// publishShard publishes m, encoded as the planner encodes it, to the shard
// topic.
func (s *stack) publishShard(m queue.ShardMessage) {
	s.t.Helper()
	pm, err := pubsubq.Encode(m)
	if err != nil {
		s.t.Fatal(err)
	}
	s.publish(shardTopic, pm.Data, pm.Attributes)
}

// read returns an object's bytes, straight from the fake.
func (s *stack) read(bucket, name string) []byte {
	s.t.Helper()
	obj, err := s.fake.GetObject(bucket, name)
	if err != nil {
		s.t.Fatal(err)
	}
	return obj.Content
}
