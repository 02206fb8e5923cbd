package bench

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/pubsubq"
)

// Fault kinds a shard's deliveries can meet in a fault pass, as the trace
// names them.
const (
	traceZombie     = "zombie"
	traceRepublish  = "republished"
	traceConcurrent = "concurrent"
	traceKilled     = "killed"
	traceRetried    = "answered non-2xx"
)

// shardTrace records, per shard, what happened to its deliveries in a fault
// pass (when each started, which fault it met, what it was answered and
// how long it took) and when the shard instance was killed, so that the
// pass can say where its time went (printTimeline).
type shardTrace struct {
	mu     sync.Mutex
	start  time.Time
	ev     map[int][]traceEvent
	kills  []time.Duration
	killed map[int]bool // shards with a delivery in flight on a killed instance
}

// traceEvent is one delivery (or its zombie or second concurrent copy).
type traceEvent struct {
	at, took time.Duration
	what     string
	attempt  int
	code     int
}

// plannerKey is the trace's key for the planner's deliveries.
const plannerKey = -2

func newShardTrace() *shardTrace {
	return &shardTrace{start: time.Now(), ev: map[int][]traceEvent{}, killed: map[int]bool{}}
}

// begin marks the start of the pass (the manifest upload).
func (t *shardTrace) begin(at time.Time) {
	t.mu.Lock()
	t.start = at
	t.mu.Unlock()
}

// shardOf is the shard index a push body names (-1 when it names none).
func shardOf(m pushMessage) int {
	n, err := strconv.Atoi(m.Message.Attributes[pubsubq.AttrShard])
	if err != nil {
		return -1
	}
	return n
}

// record adds a delivery that started at t0 and was answered code.
func (t *shardTrace) record(shard int, what string, attempt int, t0 time.Time, code int) {
	if t == nil || shard == -1 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ev[shard] = append(t.ev[shard], traceEvent{at: t0.Sub(t.start), took: time.Since(t0), what: what, attempt: attempt, code: code})
}

// kill records a SIGKILL of the shard instance and the shards it had in
// flight.
func (t *shardTrace) kill(shards []int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.kills = append(t.kills, time.Since(t.start))
	for _, s := range shards {
		t.killed[s] = true
	}
}

// finishTimes is when each done shard finished, from the pass's start, in
// shard order (-1 when not done).
func finishTimes(shards []ledger.Shard, start time.Time) []time.Duration {
	out := make([]time.Duration, len(shards))
	for i, s := range shards {
		out[i] = -1
		if s.Status == ledger.Done && !s.Finished.IsZero() {
			out[i] = s.Finished.Sub(start)
		}
	}
	return out
}

// quantiles formats the 50th, 90th, 99th and 100th percentiles of ds.
func quantiles(ds []time.Duration) string {
	var s []time.Duration
	for _, d := range ds {
		if d >= 0 {
			s = append(s, d)
		}
	}
	if len(s) == 0 {
		return "none"
	}
	slices.Sort(s)
	q := func(p float64) string {
		return fmt.Sprintf("%.1fs", s[min(len(s)-1, int(p*float64(len(s))))].Seconds())
	}
	return fmt.Sprintf("first %s p50 %s p90 %s p99 %s max %.1fs (n=%d)", q(0), q(0.5), q(0.9), q(0.99), s[len(s)-1].Seconds(), len(s))
}

// printTimeline prints where a fault pass's time went against the
// fault-free pass's: when shards finished (quantiles, and shards done per
// tenth of the wall), the same per fault kind a shard's deliveries met,
// the kill times, and the event history of the slowest shards.
func (res *passResult) printTimeline(ref *passResult) {
	tr := res.injected.trace
	ft := finishTimes(res.shards, res.start)
	fmt.Printf("timeline      fault-free finish %s\n", quantiles(finishTimes(ref.shards, ref.start)))
	fmt.Printf("              with faults finish %s\n", quantiles(ft))
	var buckets [10]int
	for _, d := range ft {
		if d >= 0 {
			buckets[min(9, int(10*d.Seconds()/res.wall.Seconds()))]++
		}
	}
	fmt.Printf("              shards done per tenth of the wall: %v\n", buckets)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	kinds := map[string][]time.Duration{}
	for i, d := range ft {
		met := map[string]bool{}
		for _, e := range tr.ev[i] {
			if strings.HasPrefix(e.what, "ledger ") {
				continue
			} else if e.what != "delivery" {
				met[e.what] = true
			} else if e.code/100 != 2 {
				met[traceRetried] = true
			}
		}
		if tr.killed[i] {
			met[traceKilled] = true
		}
		if len(met) == 0 {
			met["no push fault"] = true
		}
		for k := range met {
			kinds[k] = append(kinds[k], d)
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Printf("              shards that met %-16s finish %s\n", k+":", quantiles(kinds[k]))
	}
	ks := make([]string, len(tr.kills))
	for i, k := range tr.kills {
		ks[i] = fmt.Sprintf("%.1f", k.Seconds())
	}
	fmt.Printf("              kills at [%s] s\n", strings.Join(ks, " "))
	fmt.Printf("              planner deliveries:%s; its storage requests %d (uploads %d)\n", events(tr.ev[plannerKey]),
		res.injected.plannerStorage.seq.Load(), res.injected.plannerStorage.uploads.Load())
	for _, line := range strings.Split(res.injected.planner.logs.String(), "\n") {
		if strings.Contains(line, `"severity":"INFO"`) || strings.Contains(line, `"severity":"ERROR"`) || strings.Contains(line, `"severity":"WARN`) {
			fmt.Printf("              log Planner: %s\n", tail(line, 600))
		}
	}
	lf := &res.injected.ledger
	lf.mu.Lock()
	fmt.Printf("              ledger calls over %s: %d (the longest %.1fs, %s)\n", slowCall, lf.Slow.Load(), lf.longest.Seconds(), lf.slowest)
	lf.mu.Unlock()
	order := make([]int, 0, len(ft))
	for i := range ft {
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool { return ft[order[a]] > ft[order[b]] })
	for _, i := range order[:min(5, len(order))] {
		s := res.shards[i]
		fmt.Printf("              slow shard %d: finished %.1fs, %d claims, killed %v, last error %q;%s\n",
			i, ft[i].Seconds(), s.Attempts, tr.killed[i], s.LastError, events(tr.ev[i]))
	}
	if len(order) > 0 {
		key := fmt.Sprintf(`"shard":%d,`, order[0])
		insts := map[string]*instance{"ShardFn": res.injected.shard, "zombie": res.injected.zombie}
		for i, v := range res.injected.victimList {
			insts[fmt.Sprint("victim", i)] = v
		}
		for name, inst := range insts {
			for _, line := range strings.Split(inst.logs.String(), "\n") {
				if strings.Contains(line, key) {
					fmt.Printf("              log %s: %s\n", name, line)
				}
			}
		}
	}
}

// events formats a shard's trace events in the order they ended.
func events(ev []traceEvent) string {
	var b strings.Builder
	for _, e := range ev {
		fmt.Fprintf(&b, " [%.1fs %s #%d -> %d in %.1fs]", e.at.Seconds(), e.what, e.attempt, e.code, e.took.Seconds())
	}
	return b.String()
}
