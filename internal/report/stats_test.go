package report

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

func TestQuantile(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		q    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.5, 2.5}, // numpy.quantile([1,2,3,4], 0.5)
		{[]float64{1, 2, 3, 4}, 0.1, 1.3},
		{[]float64{1, 2, 3, 4}, 0.99, 3.97},
		{[]float64{5}, 0.9, 5},
		{[]float64{0, 10}, 0.25, 2.5},
		{nil, 0.5, 0},
	} {
		if got := quantile(c.in, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quantile(%v, %v) = %v, want %v", c.in, c.q, got, c.want)
		}
	}
	d := newDist([]float64{3, math.NaN(), 1, 2})
	if d.Count != 3 || d.Sum != 6 || d.Min != 1 || d.Max != 3 || d.P50 != 2 {
		t.Errorf("newDist with a NaN = %+v, want 3 values 1..3", d)
	}
}

func TestHistogram(t *testing.T) {
	for _, c := range []struct {
		values       []float64
		edges        []float64
		counts       []int64
		below, above int64
	}{
		{[]float64{0, 0.5, 1, 1.5, 2}, []float64{0, 1, 2}, []int64{2, 3}, 0, 0}, // last bin holds its upper edge
		{[]float64{-1, 3, math.NaN(), 1}, []float64{0, 1, 2}, []int64{0, 1}, 1, 1},
		{nil, []float64{0, 5}, []int64{0}, 0, 0},
	} {
		h := newHistogram(c.values, c.edges)
		if !slices.Equal(h.Counts, c.counts) || h.Below != c.below || h.Above != c.above {
			t.Errorf("newHistogram(%v, %v) = %v below %d above %d, want %v below %d above %d",
				c.values, c.edges, h.Counts, h.Below, h.Above, c.counts, c.below, c.above)
		}
	}
	for _, c := range []struct {
		max   float64
		bins  int
		width float64
		last  float64
	}{
		{2136, 40, 100, 2200},
		{8192, 32, 500, 8500},
		{0, 30, 1, 2},
		{37, 30, 2, 38},
	} {
		e := integerEdges(c.max, c.bins)
		if e[1]-e[0] != c.width || e[len(e)-1] != c.last || e[len(e)-1] < c.max {
			t.Errorf("integerEdges(%v, %d) = width %v last %v, want %v, %v", c.max, c.bins, e[1]-e[0], e[len(e)-1], c.width, c.last)
		}
	}
}

func TestCountTokens(t *testing.T) {
	for _, c := range []struct {
		doc    string
		n, seq int
		want   [nStmt]int
	}{
		{"<contacts-and-distances-v2> <begin_sequence> <ALA> <UNK> <begin_statements> <think> <long-range-contact> <p1> <p30> <distance> <p1> <p3> <CA> <CB> <d3.5> <plddt_lt70> <end>", 17, 2, [nStmt]int{1, 0, 0, 1, 1}},
		{"<think> <think> <medium-range-contact> <p1> <p13> <short-range-contact> <p2> <p9> <end>", 9, 0, [nStmt]int{0, 1, 1, 0, 2}},
		{"", 0, 0, [nStmt]int{}},
		{"<d> <distancex> <think>x", 3, 0, [nStmt]int{}},
		{"<begin_sequence> <think> <distance>", 3, 2, [nStmt]int{}}, // never closed: all sequence
	} {
		n, seq, got := countTokens(c.doc)
		if n != c.n || seq != c.seq || got != c.want {
			t.Errorf("countTokens(%q) = %d, %d, %v, want %d, %d, %v", c.doc, n, seq, got, c.n, c.seq, c.want)
		}
	}
}

func TestThroughputAndAccounting(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	shards := []ledger.Shard{
		{Index: 0, Status: ledger.Done, Started: t0, Finished: t0.Add(2 * time.Second), Counts: ledger.Counts{RowsIn: 12, DocsOut: 10, Filtered: map[string]int64{"too_short": 2}}},
		// a clock that disagrees: finished before the run's first start
		{Index: 1, Status: ledger.Done, Started: t0.Add(time.Second), Finished: t0.Add(-time.Second), Counts: ledger.Counts{RowsIn: 5, DocsOut: 4, Skipped: 1}},
		{Index: 2, Status: ledger.DeadLettered, Attempts: 5, EntryID: "X", Error: "boom"},
		{Index: 3, Status: ledger.Pending},
	}
	tp := throughput(shards, 40)
	if tp == nil || tp.WallS != 2 || tp.ActiveS != 2 || tp.IdleS != 0 || tp.DocsPerS != 7 || len(tp.DocsPerSBy) != 40 {
		t.Fatalf("throughput = %+v, want 14 docs over 2 s in 40 buckets", tp)
	}
	var got float64
	for _, v := range tp.DocsPerSBy {
		got += v * tp.BucketS
	}
	if math.Abs(got-14) > 1e-9 {
		t.Errorf("buckets hold %v documents, want 14", got)
	}
	if throughput(shards[2:], 40) != nil {
		t.Errorf("throughput without done shards is not nil")
	}
	a := accounting(nil, shards, 5)
	want := fmt.Sprint(Accounting{Source: "ledger", RowsIn: 17, DocsOut: 14, Filtered: map[string]int64{"too_short": 2}, Skipped: 1, Balanced: true,
		ShardsDone: 2, ShardsFailed: 1, ShardsMissing: 2, Failures: []Failure{{Shard: 2, Status: "dead_lettered", Attempts: 5, EntryID: "X", Error: "boom"}}, Missing: []int{3, 4}})
	if got := fmt.Sprint(a); got != want {
		t.Errorf("accounting =\n%s\nwant\n%s", got, want)
	}
	c, ok := countsFromMeta(map[string]string{"other": "x", metaKey: `{"format":"f","rows_in":3,"docs_out":2,"filtered":{"a":1}}`})
	if !ok || c.RowsIn != 3 || c.DocsOut != 2 || c.Filtered["a"] != 1 {
		t.Errorf("countsFromMeta = %+v, %v", c, ok)
	}
	if f := formatFromMeta(map[string]string{metaKey: `{"format":"f"}`}); f != "f" {
		t.Errorf("formatFromMeta = %q, want f", f)
	}
}

func TestBuildEdgeCases(t *testing.T) {
	ctx := context.Background()
	store := localblob.Store{}
	failed := []ledger.Shard{{Index: 0, Status: ledger.Failed, EntryID: "E", Error: "bad"}, {Index: 1, Status: ledger.Pending}}
	for _, c := range []struct {
		name    string
		files   map[string][]byte
		shards  []ledger.Shard
		wantErr string // a substring of the error; "" for success
	}{
		{"no output at all", nil, failed, ""},
		{"not a run's output", nil, nil, "not the output of a run"},
		{"not parquet", map[string][]byte{"part-00000-of-00001.parquet": []byte("PAR1 but not really")}, nil, "part-00000-of-00001.parquet"},
		{"empty file", map[string][]byte{"part-00000-of-00001.parquet": {}}, nil, "part-00000-of-00001.parquet"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for n, data := range c.files {
				if err := os.WriteFile(filepath.Join(dir, n), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Build(ctx, store, dir, Options{Shards: c.shards})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !(errors.Is(err, derrors.ErrPermanent) || errors.Is(err, derrors.ErrNotFound)) {
					t.Fatalf("Build = %v, want a permanent or not-found error saying %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			a := rep.Summary.Accounting
			if rep.Summary.Documents != 0 || a.ShardsFailed != 1 || a.ShardsMissing != 1 || len(rep.Files["accounting.png"]) == 0 || len(rep.Files["index.html"]) == 0 {
				t.Errorf("report of a run with no output: %+v, files %d", rep.Summary, len(rep.Files))
			}
			// The headline must not call a run whose shards failed balanced.
			page := string(rep.Files["index.html"])
			if a.Complete || !strings.Contains(page, `<span class="bad">INCOMPLETE: 1 failed and 1 missing shards`) || strings.Contains(page, `<span class="ok">balanced`) {
				t.Errorf("headline of a run whose shards failed (complete %v):\n%s", a.Complete, page[:min(len(page), 3000)])
			}
		})
	}
}

func TestContextLengthFromRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	shards, err := WriteSynthetic(ctx, localblob.Store{}, dir, SynthConfig{Shards: 2, RowsPerShard: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		run  *ledger.Run
		opt  int
		want int
	}{
		{nil, 0, 8192},
		{&ledger.Run{Options: map[string]string{"context_length": "4096"}}, 0, 4096},
		{&ledger.Run{Options: map[string]string{"context_length": "4096"}}, 2048, 2048},
		{&ledger.Run{Options: map[string]string{"context_length": "x"}}, 0, 8192},
	} {
		rep, err := Build(ctx, localblob.Store{}, dir, Options{Run: c.run, Shards: shards, ContextLength: c.opt})
		if err != nil {
			t.Fatal(err)
		}
		s := rep.Summary
		if s.ContextLength != c.want || !near(s.ContextFill.Max, s.NumTokens.Max/float64(c.want)) {
			t.Errorf("run %+v, option %d: context length %d (fill max %v, tokens max %v), want %d", c.run, c.opt, s.ContextLength, s.ContextFill.Max, s.NumTokens.Max, c.want)
		}
	}
}
