package emulatortests

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// miniGolden is one line of golden/confind-mini.jsonl: pyconfind's
// analysis of a corpus file with the mini library, and MarinFold's
// contacts-v1 document from it.
type miniGolden struct {
	File     string `json:"file"`
	EntryID  string `json:"entry_id"`
	Outcome  string `json:"outcome"`
	Reason   string `json:"reason"`
	Document string `json:"document"`
	SHA1     string `json:"sha1"`
}

// miniDocuments returns the golden lines of confind-mini.jsonl that are
// documents, of files under maxBytes (the small ones: the test stays
// short), in file order.
func miniDocuments(t *testing.T, dir string, maxBytes int64) []miniGolden {
	f, err := os.Open(filepath.Join(dir, "golden", "confind-mini.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []miniGolden
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var g miniGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		if g.Outcome != "document" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, g.File)); err != nil {
			t.Fatal(err)
		} else if fi.Size() <= maxBytes {
			out = append(out, g)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 8 { // 11 of this writing
		t.Fatalf("%d golden contacts-v1 documents of files under %d bytes in confind-mini.jsonl, want >= 8", len(out), maxBytes)
	}
	return out
}

// TestContactsV1FromStructuresThroughEmulators is issue 25's cloud path:
// the mini rotamer library in the bucket, a run spec of contacts-v1 with
// rotlib=gs://... over mmCIF objects. A planner given a malformed library
// (BEBL.out line 3) refuses the run before publishing any shard, naming
// the object and the line; with the good library, the deployed functions
// (Planner, then ShardFn pushed by the Pub/Sub emulator) write the
// documents of MarinFold's generator, byte for byte, and the same ones as
// `foldcorpus run` with the same gs:// manifest and library.
func TestContactsV1FromStructuresThroughEmulators(t *testing.T) {
	dir := testcorpus.Dir(t)
	gold := miniDocuments(t, dir, 130_000)
	// A filtered file (MarinFold raises: two protein chains, max_chains=1)
	// is counted, not failed, on both sides.
	const multiChain = "pdb/3i40.cif"
	s := newStack(t, stackOpts{})
	// Everything published to the shard topic, seen by a pull subscription
	// beside the function's push subscription.
	s.subscribe(shardTopic+"-watch", shardTopic, "", nil)

	lib := filepath.Join(dir, "golden", "confind-mini-rotlib")
	ebl, err := os.ReadFile(filepath.Join(lib, "EBL.out"))
	if err != nil {
		t.Fatal(err)
	}
	bebl, err := os.ReadFile(filepath.Join(lib, "BEBL.out"))
	if err != nil {
		t.Fatal(err)
	}
	s.put(dataBucket, "rotlib/EBL.out", ebl, "")
	s.put(dataBucket, "rotlib/BEBL.out", bebl, "")
	s.put(dataBucket, "badlib/EBL.out", ebl, "")
	s.put(dataBucket, "badlib/BEBL.out", []byte("PHIBIN 10\nPSIBIN 10\nBIN 10 10\n"), "") // line 3: a bin with no values

	var rows [][]any
	for _, file := range append(fileNames(gold), multiChain) {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		name := "cif/" + strings.ReplaceAll(file, "/", "_")
		s.put(dataBucket, name, data, "")
		rows = append(rows, []any{strings.TrimSuffix(filepath.Base(file), ".cif"), "gs://" + dataBucket + "/" + name})
	}
	mdata, err := manifest.Encode(manifestCols, rows, 4)
	if err != nil {
		t.Fatal(err)
	}
	manifestURI := "gs://" + dataBucket + "/manifests/confind.parquet"
	s.put(dataBucket, "manifests/confind.parquet", mdata, "")
	runSpec := func(name, rotlib string) string {
		spec, _ := json.Marshal(map[string]any{"manifest": manifestURI, "format": "contacts-v1",
			"options": map[string]string{"rotlib": rotlib}, "row_groups_per_shard": 1})
		gen := s.put(manifestBucket, "runs/"+name+".run.json", spec, "")
		return fmt.Sprintf("gs://%s/runs/%s.run.json#%d", manifestBucket, name, gen)
	}

	// The bad library: refused at planning, once, naming the object and
	// the line; no run recorded, no shard published.
	badID := runSpec("badlib", "gs://"+dataBucket+"/badlib")
	want := "gs://" + dataBucket + "/badlib/BEBL.out:3"
	refusal := s.waitLog("Planner", 60*time.Second, func(rec map[string]any) bool {
		return rec["message"] == "planning failed permanently; event acknowledged" && rec["run"] == badID
	})
	if msg, _ := refusal["error"].(string); !strings.Contains(msg, want) {
		t.Errorf("the planner refused the bad library with %q, want an error naming %s", msg, want)
	}
	if _, err := s.ledger.GetRun(s.ctx, badID); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("ledger run of the refused spec: %v, want not found", err)
	}
	if n := len(s.pullFor(shardTopic+"-watch", 3*time.Second)); n != 0 {
		t.Fatalf("%d shard messages published for a run with a bad library, want none", n)
	}

	// The good library, through the deployed functions.
	runID := runSpec("good", "gs://"+dataBucket+"/rotlib")
	shards := s.waitSettled(runID, 180*time.Second)
	if len(shards) != (len(rows)+3)/4 {
		t.Errorf("%d shards, want %d (one per row group of 4)", len(shards), (len(rows)+3)/4)
	}
	filtered := map[string]int64{}
	for _, sh := range shards {
		if sh.Status != ledger.Done {
			t.Fatalf("shard %d: %s (%s)", sh.Index, sh.Status, sh.Error)
		}
		for k, n := range sh.Counts.Filtered {
			filtered[k] += n
		}
	}
	if fmt.Sprint(filtered) != "map[multi_chain:1]" {
		t.Errorf("filtered %v, want map[multi_chain:1] (%s)", filtered, multiChain)
	}
	sort.Slice(shards, func(i, j int) bool { return shards[i].Index < shards[j].Index })
	cloud, _ := s.outputs(shards)
	if len(cloud) != len(gold) {
		t.Fatalf("%d documents through the functions, want %d", len(cloud), len(gold))
	}
	for i, g := range gold {
		if d := cloud[i]; d[0] != g.EntryID || d[1] != g.SHA1 || d[2] != g.Document {
			t.Errorf("%s: document of %s sha1 %s, want MarinFold's %s sha1 %s", g.File, d[0], d[1], g.EntryID, g.SHA1)
		}
	}

	// The same manifest and library, through `foldcorpus run` here.
	out := t.TempDir()
	if msg, code := s.cli("run", "--manifest", manifestURI, "--format", "contacts-v1", "--opt", "rotlib=gs://"+dataBucket+"/rotlib",
		"--row-groups-per-shard", "1", "--workers", "2", "--out", out); code != 0 {
		t.Fatalf("foldcorpus run exited %d:\n%s", code, msg)
	}
	parts, err := (localblob.Store{}).List(s.ctx, filepath.Join(out, "part-*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var local [][3]string
	for _, p := range parts {
		err := corpus.Read(s.ctx, localblob.Store{}, p, []string{"entry_id", "sha1", "document"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				local = append(local, [3]string{v[0].(string), v[1].(string), v[2].(string)})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(local) != fmt.Sprint(cloud) {
		t.Errorf("foldcorpus run wrote %d documents, the functions %d, and they differ", len(local), len(cloud))
	}
}

func fileNames(gs []miniGolden) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.File)
	}
	return out
}

// waitLog waits for a JSON log record of the target function for which
// match holds, and returns it.
func (s *stack) waitLog(target string, timeout time.Duration, match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	p := s.fns[target]
	timeout = patient(timeout)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(p.log.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && match(rec) {
				return rec
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.t.Fatalf("no matching %s log record after %s:\n%s", target, timeout, p.tail(20))
	return nil
}

// pullFor pulls from a pull subscription for d and acks what came.
func (s *stack) pullFor(subID string, d time.Duration) []*pubsubpb.ReceivedMessage {
	s.t.Helper()
	var out []*pubsubpb.ReceivedMessage
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(s.ctx, time.Until(deadline))
		resp, err := s.ps.SubscriptionAdminClient.Pull(ctx, &pubsubpb.PullRequest{Subscription: s.sub(subID), MaxMessages: 100})
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			s.t.Fatal(err)
		}
		var ack []string
		for _, m := range resp.ReceivedMessages {
			out = append(out, m)
			ack = append(ack, m.AckId)
		}
		if len(ack) > 0 {
			if err := s.ps.SubscriptionAdminClient.Acknowledge(s.ctx, &pubsubpb.AcknowledgeRequest{Subscription: s.sub(subID), AckIds: ack}); err != nil {
				s.t.Fatal(err)
			}
		}
	}
	return out
}
