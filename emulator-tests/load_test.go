package emulatortests

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/synth"
)

// TestLoad pushes N shards x 20 rows through the emulators (N from
// FOLDCORPUS_LOAD_SHARDS, default 60; runs of 1,000 and 12,005 were
// measured by hand) and checks nothing is lost or duplicated. It logs
// shards/s, the planner's publish rate, lost and duplicated rows and the
// functions' peak memory.
func TestLoad(t *testing.T) {
	n := 60
	if v := os.Getenv("FOLDCORPUS_LOAD_SHARDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("FOLDCORPUS_LOAD_SHARDS=%q", v)
		}
	}
	const perShard = 20
	s := newStack(t, stackOpts{rowGroupsPerShard: 1, fetchConcurrency: 20})
	var uris []string
	for i := range perShard {
		p := synth.Make(synth.SampleSeed, i, 40, 90)
		name := fmt.Sprintf("synth/%s.cif", p.EntryID)
		s.put(dataBucket, name, p.CIF, "")
		uris = append(uris, "gs://"+dataBucket+"/"+name)
	}
	rows := make([][]any, 0, n*perShard)
	for r := range n * perShard {
		rows = append(rows, []any{fmt.Sprintf("LOAD-%07d", r), uris[r%perShard]})
	}
	start := time.Now()
	runID := s.uploadManifest("runs/load.parquet", rows, perShard)
	s.waitFor(runID, time.Duration(30+n/2)*time.Second, "done", allDone)
	wall := time.Since(start)

	shards, err := s.ledger.Shards(s.ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != n {
		t.Fatalf("%d shards, want %d", len(shards), n)
	}
	var rowsIn, docsOut, filtered int64
	first, last := shards[0].Started, shards[0].Finished
	for _, sh := range shards {
		rowsIn += sh.Counts.RowsIn
		docsOut += sh.Counts.DocsOut
		for _, k := range sh.Counts.Filtered {
			filtered += k
		}
		if sh.Started.Before(first) {
			first = sh.Started
		}
		if sh.Finished.After(last) {
			last = sh.Finished
		}
	}
	if rowsIn != int64(n*perShard) || docsOut+filtered != rowsIn {
		t.Errorf("rows_in %d (want %d), docs %d + filtered %d", rowsIn, n*perShard, docsOut, filtered)
	}
	// Every document once, in its shard: read the entry ids back.
	seen := make(map[string]int, docsOut)
	for _, sh := range shards {
		err := corpus.Read(s.ctx, s.store, sh.Output, []string{"entry_id"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				id := v[0].(string)
				seen[id]++
				var k int
				fmt.Sscanf(id, "LOAD-%d", &k)
				if k/perShard != sh.Index {
					t.Errorf("%s in shard %d", id, sh.Index)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	dups := 0
	for _, c := range seen {
		if c > 1 {
			dups++
		}
	}
	if int64(len(seen)) != docsOut || dups > 0 {
		t.Errorf("%d distinct documents read back (%d duplicated), ledger says %d", len(seen), dups, docsOut)
	}
	run, _ := s.ledger.GetRun(s.ctx, runID)
	if objs := s.listObjects(run.Output); len(objs) != n {
		t.Errorf("%d output objects, want %d", len(objs), n)
	}
	plans := s.fns["Planner"].logRecords("run planned")
	if len(plans) != 1 {
		t.Fatalf("planner log: %v", plans)
	}
	pub, _ := plans[0]["published"].(float64)
	pubMS, _ := plans[0]["publish_ms"].(float64)
	prepMS, _ := plans[0]["prepare_ms"].(float64)
	recMS, _ := plans[0]["record_ms"].(float64)
	active := last.Sub(first)
	attempts := map[int]int{}
	for _, sh := range shards {
		attempts[sh.Attempts]++
	}
	keys := make([]int, 0, len(attempts))
	for k := range attempts {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	lost := int64(n*perShard) - int64(len(seen)) - filtered
	t.Logf("LOAD rows: %d lost, %d duplicated; peak RSS (VmHWM): Planner %s, ShardFn %s",
		lost, dups, s.fns["Planner"].peakRSS(), s.fns["ShardFn"].peakRSS())
	t.Logf("LOAD %d shards x %d rows: %d docs, %d filtered; upload->all done %s (%.1f shards/s); first claim->last done %s (%.1f shards/s); planner: prepare %.0f ms, record run+shards in Firestore %.0f ms, publish %d msgs in %.0f ms (%.0f msgs/s); attempts histogram %v",
		n, perShard, docsOut, filtered, wall.Round(time.Millisecond), float64(n)/wall.Seconds(), active.Round(time.Millisecond), float64(n)/active.Seconds(),
		prepMS, recMS, int(pub), pubMS, pub/(max(pubMS, 1)/1000), attempts)
	for _, sh := range shards {
		if sh.Status != ledger.Done {
			t.Errorf("shard %d: %s", sh.Index, sh.Status)
		}
	}
}

// peakRSS is the process's peak resident memory (VmHWM in /proc), or "?"
// where /proc cannot tell.
func (p *fnProc) peakRSS() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fn == nil {
		return "?"
	}
	return p.fn.PeakRSS()
}
