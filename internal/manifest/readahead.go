package manifest

import (
	"cmp"
	"slices"
	"sort"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/foldcorpus/foldcorpus/internal/blob"
)

// The parquet reader asks for one column chunk per ReadAt, and on object
// storage each ReadAt is a request: the planner's read of a 12,005-row-group
// manifest's entry_id column was 12,005 requests in a row (minutes on the
// storage emulator, the planner's whole budget in the cloud). readAhead
// fetches the chunks a read will ask for before it asks, in few requests:
// chunks closer than aheadGap are merged into one request of at most
// aheadSpan bytes, the requests of a batch of row groups (at most
// aheadBytes bytes) run aheadParallel at a time, and the next batch is
// fetched while the current one is decoded. A chunk larger than aheadSpan
// is left to the reader's own request (nothing to merge, and it would be
// held twice). What is not covered by a fetched span (a writer's padding,
// a failed fetch) is read directly, so read-ahead changes requests, never
// bytes.
const (
	aheadGap      = 64 << 10
	aheadSpan     = 4 << 20
	aheadBytes    = 16 << 20
	aheadParallel = 8
)

// aheadObject is a blob.Object whose ReadAt is served from spans fetched
// ahead when one covers the read.
type aheadObject struct {
	blob.Object
	mu    sync.Mutex
	spans []*span // sorted by off
}

type span struct {
	off, n int64
	data   []byte
	err    error
	done   chan struct{}
}

func (o *aheadObject) ReadAt(p []byte, off int64) (int, error) {
	o.mu.Lock()
	i := sort.Search(len(o.spans), func(i int) bool { return o.spans[i].off+o.spans[i].n > off })
	var s *span
	if i < len(o.spans) && o.spans[i].off <= off && off+int64(len(p)) <= o.spans[i].off+o.spans[i].n {
		s = o.spans[i]
	}
	o.mu.Unlock()
	if s != nil {
		<-s.done
		if s.err == nil {
			return copy(p, s.data[off-s.off:]), nil
		}
	}
	return o.Object.ReadAt(p, off)
}

// fetch starts reading the spans, aheadParallel at a time, and returns at
// once; each span's done closes when its read has ended.
func (o *aheadObject) fetch(spans []*span) {
	o.mu.Lock()
	o.spans = append(o.spans, spans...)
	sort.Slice(o.spans, func(i, j int) bool { return o.spans[i].off < o.spans[j].off })
	o.mu.Unlock()
	sem := make(chan struct{}, aheadParallel)
	go func() {
		for _, s := range spans {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				buf := make([]byte, s.n)
				n, err := o.Object.ReadAt(buf, s.off)
				if err != nil && n == len(buf) {
					err = nil // io.EOF with the whole span
				}
				s.data, s.err = buf, err
				close(s.done)
			}()
		}
	}()
}

// drop forgets the spans (after waiting for their reads, so that none
// outlives the read that asked for it).
func (o *aheadObject) drop(spans []*span) {
	for _, s := range spans {
		<-s.done
	}
	o.mu.Lock()
	o.spans = slices.DeleteFunc(o.spans, func(s *span) bool { return slices.Contains(spans, s) })
	o.mu.Unlock()
}

// aheadBatch is the spans of rowGroups[start:end] (the indices of a
// read's row groups, not the file's).
type aheadBatch struct {
	start, end int
	spans      []*span
}

// aheadPlan plans the read of the leaves of rowGroups: consecutive row
// groups in batches of at most aheadBytes of chunks (at least one row
// group each), each batch's chunks merged into spans. Row groups whose
// chunks are all too large to merge have no batch.
func aheadPlan(pf *file.Reader, rowGroups, leaves []int) []aheadBatch {
	type chunk struct{ off, n int64 }
	var batches []aheadBatch
	var cur []chunk
	var bytes int64
	start := 0
	for i, rg := range rowGroups {
		rgm := pf.MetaData().RowGroup(rg)
		for _, leaf := range leaves {
			cc, err := rgm.ColumnChunk(leaf)
			if err != nil {
				continue // the reader reports it
			}
			off, n := cc.DataPageOffset(), cc.TotalCompressedSize()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && off > cc.DictionaryPageOffset() {
				off = cc.DictionaryPageOffset()
			}
			if off < 0 || n <= 0 || n > aheadSpan || off+n > pf.MetaData().GetSourceFileSize() {
				continue
			}
			cur = append(cur, chunk{off, n})
			bytes += n
		}
		if bytes < aheadBytes && i < len(rowGroups)-1 {
			continue
		}
		if len(cur) > 0 {
			slices.SortFunc(cur, func(a, b chunk) int { return cmp.Compare(a.off, b.off) })
			b := aheadBatch{start: start, end: i + 1}
			for _, c := range cur {
				if k := len(b.spans) - 1; k >= 0 && c.off-(b.spans[k].off+b.spans[k].n) <= aheadGap && c.off+c.n-b.spans[k].off <= aheadSpan {
					b.spans[k].n = max(b.spans[k].n, c.off+c.n-b.spans[k].off)
					continue
				}
				b.spans = append(b.spans, &span{off: c.off, n: c.n, done: make(chan struct{})})
			}
			batches = append(batches, b)
		}
		cur, bytes, start = nil, 0, i+1
	}
	return batches
}
