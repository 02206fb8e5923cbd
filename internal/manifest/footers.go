package manifest

import (
	"container/list"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/foldcorpus/foldcorpus/internal/blob"
)

// A manifest's footer describes every row group, and a shard reads one:
// at 12,005 row groups the footer is about 7 MB of thrift, and parsing it
// for every shard (every delivery) was most of a shard function's CPU and
// tens of MB of its memory per delivery in flight. An object at a known
// generation never changes, so its parsed footer is kept (footers) and
// shared by every later Open of the same generation in the process: the
// shard function parses a manifest's footer once per instance. A local
// file has no generation: it is keyed by its modification time and size
// (a rewrite changes them), so `run` parses its manifest's footer once,
// not once per shard.

// footerCacheSize is how many parsed footers a process keeps (the least
// recently used goes first): a run has one manifest file per few thousand
// shards, and an instance serves one run at a time.
const footerCacheSize = 4

type footerKey struct {
	uri        string
	generation int64
	modTime    int64 // ns, for objects without a generation
	size       int64
}

// footerKeyOf is o's key, and false when o has neither a generation nor a
// modification time (nothing says it is the same object).
func footerKeyOf(uri string, o blob.Object) (footerKey, bool) {
	if gen := blob.ObjectGeneration(o); gen != 0 {
		return footerKey{uri: uri, generation: gen, size: o.Size()}, true
	}
	if m, ok := o.(interface{ ModTime() time.Time }); ok && !m.ModTime().IsZero() {
		return footerKey{uri: uri, modTime: m.ModTime().UnixNano(), size: o.Size()}, true
	}
	return footerKey{}, false
}

type footerEntry struct {
	key  footerKey
	done chan struct{} // closed when md or err is set
	md   *metadata.FileMetaData
	err  error
}

// footerCache is an LRU of parsed footers; concurrent Opens of the same
// footer wait for one parse.
type footerCache struct {
	mu      sync.Mutex
	entries map[footerKey]*list.Element // of *footerEntry
	order   *list.List                  // most recently used first
	parses  int                         // footers parsed (tests)
}

var footers = &footerCache{entries: map[footerKey]*list.Element{}, order: list.New()}

// get returns the parsed footer of key, parsing it with parse when no
// other Open has (a failed parse is not kept: the next Open tries again).
func (c *footerCache) get(key footerKey, parse func() (*metadata.FileMetaData, error)) (*metadata.FileMetaData, error) {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*footerEntry)
		c.mu.Unlock()
		<-e.done
		if e.err == nil {
			return e.md, nil
		}
		return parse() // the first parse failed; this Open tries for itself
	}
	e := &footerEntry{key: key, done: make(chan struct{})}
	c.entries[key] = c.order.PushFront(e)
	c.parses++
	for c.order.Len() > footerCacheSize {
		old := c.order.Remove(c.order.Back()).(*footerEntry)
		delete(c.entries, old.key)
	}
	c.mu.Unlock()
	e.md, e.err = parse()
	if e.err != nil {
		c.mu.Lock()
		if el, ok := c.entries[key]; ok && el.Value.(*footerEntry) == e {
			c.order.Remove(el)
			delete(c.entries, key)
		}
		c.mu.Unlock()
	}
	close(e.done)
	return e.md, e.err
}
