package report

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// Summary is report/summary.json: every figure of the page as numbers, with
// stable keys and no timestamps of its own, so two runs can be diffed.
type Summary struct {
	Source        string `json:"source"`
	Format        string `json:"format,omitempty"`
	ContextLength int    `json:"context_length"`
	Files         int    `json:"files"`
	ShardsTotal   int    `json:"shards_total"`
	Documents     int64  `json:"documents"` // rows in the output files

	Accounting     Accounting  `json:"accounting"`
	DocsPerShard   Dist        `json:"documents_per_shard"`
	ShardWallClock *Dist       `json:"shard_wall_clock_s,omitempty"`
	SeqLen         *DistHist   `json:"seq_len,omitempty"`
	NumTokens      *DistHist   `json:"num_tokens,omitempty"`
	ContextFill    *DistHist   `json:"context_fill,omitempty"`
	Statements     *Statements `json:"statements,omitempty"`
	// Coordinates is the statement mix of the coordinate formats.
	Coordinates *CoordinateMix `json:"coordinates,omitempty"`
	GlobalPLDDT *DistHist      `json:"global_plddt,omitempty"`
	Throughput  *Throughput    `json:"throughput,omitempty"`
	// Story is a PDB corpus's way from its folder of files (Story).
	Story *Story  `json:"story,omitempty"`
	IO    IOStats `json:"io"`
	Plots []Plot  `json:"plots"`
}

// DistHist is a distribution with its histogram.
type DistHist struct {
	Dist
	Histogram Histogram `json:"histogram"`
}

// Statements is the statement mix of contacts-and-distances-v2 documents,
// counted from the document tokens: per class, the distribution over
// documents and the total.
type Statements struct {
	PerDocument map[string]Dist  `json:"per_document"`
	Totals      map[string]int64 `json:"totals"`
	// TokenComposition is every token of the documents by kind: sequence,
	// contact_statements (3 tokens each), distance_statements (6 each),
	// think, other (header, markers, pLDDT, end); they add up to all tokens.
	TokenComposition map[string]int64 `json:"token_composition"`
	// NumTokensMismatch counts documents whose num_tokens column is not
	// the number of tokens in the document (0 for a sound corpus).
	NumTokensMismatch int64 `json:"num_tokens_mismatch"`
}

// Accounting is rows in versus documents out, with every filter reason and
// every failed, dead-lettered or missing shard.
type Accounting struct {
	Source   string           `json:"source"` // "ledger" or "parquet-metadata"
	RowsIn   int64            `json:"rows_in"`
	DocsOut  int64            `json:"docs_out"`
	Filtered map[string]int64 `json:"filtered"`
	Skipped  int64            `json:"skipped"`
	Balanced bool             `json:"balanced"` // rows_in == docs_out + sum(filtered) + skipped, over the done shards (ledger.Counts.Balanced)
	// A format writing several documents per row (a PDB entry's chains
	// and assembly): the entries processed, the documents by kind and
	// the funnel's named counts (chains kept and dropped by reason, ...).
	Entries  int64            `json:"entries,omitempty"`
	UnitDocs map[string]int64 `json:"unit_docs,omitempty"`
	Funnel   map[string]int64 `json:"funnel,omitempty"`
	// Complete: every shard is done (none failed, dead-lettered or
	// missing). The counts above cover the done shards only: a failed
	// shard writes no documents.
	Complete      bool      `json:"complete"`
	ShardsDone    int       `json:"shards_done"`
	ShardsFailed  int       `json:"shards_failed"`
	ShardsMissing int       `json:"shards_missing"`
	Failures      []Failure `json:"failures"`
	Missing       []int     `json:"missing"`

	// SuspectSeqLen counts the rows written although their structure's
	// length differs from the manifest's seq_len (truncated objects?).
	SuspectSeqLen int64 `json:"suspect_seq_len,omitempty"`
}

// Failure is one shard that did not finish.
type Failure struct {
	Shard    int    `json:"shard"`
	Status   string `json:"status"`
	Attempts int    `json:"attempts,omitempty"`
	EntryID  string `json:"entry_id,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Throughput is documents over the time the run's shards were running,
// from the ledger's shard start and finish times. Time when no shard ran
// (between an interrupted run and its resume) is idle: it counts in WallS
// but not in ActiveS, DocsPerS or the time axis of DocsPerSBy.
type Throughput struct {
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	WallS    float64   `json:"wall_s"`     // End - Start, idle time included
	ActiveS  float64   `json:"active_s"`   // time with at least one shard running: WallS - IdleS
	IdleS    float64   `json:"idle_s"`     // time between Start and End with no shard running
	DocsPerS float64   `json:"docs_per_s"` // documents / ActiveS
	RowsPerS float64   `json:"rows_per_s"` // rows in / ActiveS
	// BucketS is the width of a bucket of running time (ActiveS / buckets).
	BucketS float64 `json:"bucket_s"`
	// DocsPerSBy is documents per second in each bucket of running time,
	// each done shard's documents spread evenly over its own run, so the
	// rate stays up while shards run and buckets * BucketS add up to the
	// documents.
	DocsPerSBy []float64 `json:"docs_per_s_by_bucket"`
	// Gaps are the idle stretches of at least minGapS, where the time axis
	// is cut.
	Gaps []IdleGap `json:"idle_gaps"`
}

// IdleGap is an idle stretch cut out of the running time.
type IdleGap struct {
	AtS   float64 `json:"at_s"`   // seconds of running time before it
	IdleS float64 `json:"idle_s"` // its length
}

// minGapS is the shortest idle stretch Throughput.Gaps lists (and the
// throughput plot marks); shorter ones still count in IdleS.
const minGapS = 1.0

// IOStats shows what the report read: the footer and only its columns.
type IOStats struct {
	BytesTotal  int64    `json:"bytes_total"`
	BytesRead   int64    `json:"bytes_read"`
	ColumnsRead []string `json:"columns_read"`
}

// Plot is one PNG of the page.
type Plot struct {
	File  string `json:"file"`
	Title string `json:"title"`
}

// countsFromMeta finds the shard accounting in a file's key-value metadata:
// the JSON object under metaKey, else any value holding rows_in.
func countsFromMeta(meta map[string]string) (ledger.Counts, bool) {
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if k != metaKey {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if _, ok := meta[metaKey]; ok {
		keys = append([]string{metaKey}, keys...)
	}
	for _, k := range keys {
		v := meta[k]
		if !strings.Contains(v, `"rows_in"`) {
			continue
		}
		var probe struct {
			ledger.Counts
			Nested *ledger.Counts `json:"counts"`
		}
		if err := json.Unmarshal([]byte(v), &probe); err != nil {
			continue
		}
		if probe.Nested != nil {
			return *probe.Nested, true
		}
		return probe.Counts, true
	}
	return ledger.Counts{}, false
}

// metaKey is the key-value metadata key of the shard accounting JSON that
// the pipeline writes into every output file (internal/corpus.MetadataKey).
const metaKey = "foldcorpus.accounting"

// formatFromMeta returns the format named in a file's accounting metadata.
func formatFromMeta(meta map[string]string) string {
	var acc struct {
		Format string `json:"format"`
	}
	if v, ok := meta[metaKey]; ok && json.Unmarshal([]byte(v), &acc) == nil {
		return acc.Format
	}
	return ""
}

// accounting sums the ledger records when there are any, and the files'
// metadata otherwise; it lists every shard that did not finish.
func accounting(files []*shardFile, shards []ledger.Shard, total int) Accounting {
	a := Accounting{Filtered: map[string]int64{}, Failures: []Failure{}, Missing: []int{}}
	var sum ledger.Counts
	add := func(c ledger.Counts) { sum.Add(c) }
	have := map[int]bool{}
	if len(shards) > 0 {
		a.Source = "ledger"
		for _, s := range shards {
			switch s.Status {
			case ledger.Done:
				a.ShardsDone++
				have[s.Index] = true
				add(s.Counts)
			case ledger.Failed, ledger.DeadLettered:
				a.ShardsFailed++
				have[s.Index] = true
				a.Failures = append(a.Failures, Failure{Shard: s.Index, Status: string(s.Status), Attempts: s.Attempts, EntryID: s.EntryID, Error: s.Error})
			}
		}
	} else {
		a.Source = "parquet-metadata"
		for _, f := range files {
			a.ShardsDone++
			if f.Index >= 0 {
				have[f.Index] = true
			}
			if c, ok := countsFromMeta(f.Meta); ok {
				add(c)
			} else {
				sum.Add(ledger.Counts{RowsIn: f.Rows, DocsOut: f.Rows})
			}
		}
	}
	for i := 0; i < total; i++ {
		if !have[i] {
			a.Missing = append(a.Missing, i)
		}
	}
	a.ShardsMissing = len(a.Missing)
	a.RowsIn, a.DocsOut, a.Skipped, a.Entries, a.SuspectSeqLen = sum.RowsIn, sum.DocsOut, sum.Skipped, sum.Entries, sum.SuspectSeqLen
	for r, n := range sum.Filtered {
		a.Filtered[r] = n
	}
	a.UnitDocs, a.Funnel = sum.UnitDocs, sum.Funnel
	a.Balanced = sum.Balanced()
	a.Complete = a.ShardsFailed == 0 && a.ShardsMissing == 0
	return a
}

// throughput derives documents per second of running time from the done
// shards' start and finish times, in maxBuckets buckets of running time;
// nil when the ledger has no times. A shard whose clock has it finish
// before it started (or before the run's first start) counts as an
// instant at its finish (or at the start).
func throughput(shards []ledger.Shard, maxBuckets int) *Throughput {
	var t Throughput
	var docs, rows int64
	var done []ledger.Shard
	for _, s := range shards {
		if s.Status != ledger.Done || s.Started.IsZero() || s.Finished.IsZero() {
			continue
		}
		done = append(done, s)
		if t.Start.IsZero() || s.Started.Before(t.Start) {
			t.Start = s.Started
		}
		if s.Finished.After(t.End) {
			t.End = s.Finished
		}
		docs += s.Counts.DocsOut
		rows += s.Counts.RowsIn
	}
	if len(done) == 0 {
		return nil
	}
	t.Start, t.End = t.Start.UTC(), t.End.UTC()
	t.WallS = t.End.Sub(t.Start).Seconds()
	spans := make([]span, len(done))
	for i, s := range done {
		// clamp: a shard's clock can disagree with another's (or its own).
		e := min(max(s.Finished.Sub(t.Start).Seconds(), 0), t.WallS)
		spans[i] = span{min(s.Started.Sub(t.Start).Seconds(), e), e}
	}
	tl := newTimeline(spans)
	t.ActiveS, t.IdleS = tl.active, tl.idle
	t.Gaps = []IdleGap{}
	for _, g := range tl.gaps {
		if g.IdleS >= minGapS {
			t.Gaps = append(t.Gaps, g)
		}
	}
	active := t.ActiveS
	buckets := maxBuckets
	if active <= 0 {
		active, buckets = 1e-9, 1
	}
	t.DocsPerS = float64(docs) / active
	t.RowsPerS = float64(rows) / active
	t.BucketS = active / float64(buckets)
	t.DocsPerSBy = make([]float64, buckets)
	for i, s := range done {
		spread(t.DocsPerSBy, t.BucketS, tl.at(spans[i].b), tl.at(spans[i].e), float64(s.Counts.DocsOut))
	}
	return &t
}

// span is a shard's run, in seconds since the run's start.
type span struct{ b, e float64 }

// timeline maps wall-clock seconds to seconds of running time: the union
// of the shards' spans, with the gaps between them cut out.
type timeline struct {
	islands      []span // merged spans, in order
	active, idle float64
	gaps         []IdleGap // every gap between islands
}

func newTimeline(spans []span) timeline {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(x, y span) int { return cmp.Compare(x.b, y.b) })
	var tl timeline
	for _, s := range sorted {
		if n := len(tl.islands); n > 0 && s.b <= tl.islands[n-1].e {
			tl.islands[n-1].e = max(tl.islands[n-1].e, s.e)
			continue
		}
		tl.islands = append(tl.islands, s)
	}
	for i, is := range tl.islands {
		if i > 0 {
			g := is.b - tl.islands[i-1].e
			tl.idle += g
			tl.gaps = append(tl.gaps, IdleGap{AtS: tl.active, IdleS: g})
		}
		tl.active += is.e - is.b
	}
	return tl
}

// at returns the running time before wall-clock second x.
func (tl timeline) at(x float64) float64 {
	var a float64
	for _, is := range tl.islands {
		a += min(max(x-is.b, 0), is.e-is.b)
	}
	return a
}

// spread adds n documents, produced evenly over running time [a, b], to
// the per-second rates of the buckets of width w; an instant (a == b) adds
// them all to its bucket.
func spread(rate []float64, w, a, b, n float64) {
	last := len(rate) - 1
	if b <= a {
		rate[min(max(int(a/w), 0), last)] += n / w
		return
	}
	for i := min(max(int(a/w), 0), last); i <= last; i++ {
		lo, hi := float64(i)*w, float64(i+1)*w
		if i == last {
			hi = math.Inf(1) // the last bucket ends with the run
		}
		if lo >= b {
			break
		}
		if ov := min(hi, b) - max(lo, a); ov > 0 {
			rate[i] += n * ov / (b - a) / w
		}
	}
}
