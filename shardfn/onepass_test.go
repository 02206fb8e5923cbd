package shardfn_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/queue"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
	"github.com/foldcorpus/foldcorpus/shardfn"
)

// countingStore counts, per URI, the Store calls a shard makes: Open (on
// GCS an attributes call each), ReadAll, and the ReadAt calls of its
// objects, among them the footer reads (a ReadAt that reaches the object's
// last byte, where a parquet footer ends).
type countingStore struct {
	blob.Store
	mu                                sync.Mutex
	opens, readAlls, readAts, footers map[string]int
}

func newCountingStore(s blob.Store) *countingStore {
	return &countingStore{Store: s, opens: map[string]int{}, readAlls: map[string]int{}, readAts: map[string]int{}, footers: map[string]int{}}
}

func (c *countingStore) Open(ctx context.Context, uri string) (blob.Object, error) {
	c.mu.Lock()
	c.opens[uri]++
	c.mu.Unlock()
	o, err := c.Store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	return &countingObject{Object: o, uri: uri, c: c}, nil
}

func (c *countingStore) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	c.mu.Lock()
	c.readAlls[uri]++
	c.mu.Unlock()
	return c.Store.ReadAll(ctx, uri)
}

type countingObject struct {
	blob.Object
	uri string
	c   *countingStore
}

func (o *countingObject) ReadAt(p []byte, off int64) (int, error) {
	o.c.mu.Lock()
	o.c.readAts[o.uri]++
	if off+int64(len(p)) >= o.Size() {
		o.c.footers[o.uri]++
	}
	o.c.mu.Unlock()
	return o.Object.ReadAt(p, off)
}

// TestOnePassPerShard: a shard opens its manifest once and reads its footer
// once, whether its rows go to the corpus writer or are staged for the
// tokenize job, and validates its message once.
func TestOnePassPerShard(t *testing.T) {
	rows := []row{{"A", "data_alpha"}, {"B", "data_short"}, {"C", "data_gamma"}, {"D", "data_delta"}, {"E", "data_eps"}}
	for _, tc := range []struct {
		name    string
		handoff bool
	}{
		{name: "corpus writer"},
		{name: "staged for the tokenize job", handoff: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, deps, dir := setup(t, rows, false, plain)
			cs := newCountingStore(deps.Store)
			deps.Store = cs
			validations := 0
			deps.Validate = func(m queue.ShardMessage) error {
				validations++
				return m.Validate()
			}
			if tc.handoff {
				deps.NewFormat = func(string, map[string]string) (format.Format, error) { return neuralFake{}, nil }
				deps.Handoff = &shardfn.Handoff{
					StagedURI: func(queue.ShardMessage) (string, error) { return filepath.Join(dir, "staging", "s0.json.gz"), nil },
					Publish:   func(context.Context, tokenize.Request) error { return nil },
				}
			}
			msg := p.Messages[0]
			res, err := shardfn.Process(context.Background(), deps, msg)
			if err != nil {
				t.Fatal(err)
			}
			if tc.handoff != (res.Staged != "") || res.Accounting.RowsIn != int64(len(rows)) {
				t.Fatalf("Process = staged %q, rows_in %d; want staged %v, rows_in %d", res.Staged, res.Accounting.RowsIn, tc.handoff, len(rows))
			}
			m := msg.Manifest
			if cs.opens[m] != 1 || cs.footers[m] != 1 || cs.readAlls[m] != 0 {
				t.Errorf("manifest %s: %d Open, %d footer reads, %d ReadAll (%d ReadAt in all); want exactly 1 Open, 1 footer read, no ReadAll",
					m, cs.opens[m], cs.footers[m], cs.readAlls[m], cs.readAts[m])
			}
			if validations != 1 {
				t.Errorf("Process validated the message %d times, want 1", validations)
			}
		})
	}
}

// TestPrevalidated: a message the queue already validated is not validated
// again (the cloud function's case), and the default validates.
func TestPrevalidated(t *testing.T) {
	p, deps, _ := setup(t, []row{{"A", "data_alpha"}}, false, plain)
	bad := p.Messages[0]
	bad.Total = 0 // invalid: Validate refuses it
	if bad.Validate() == nil {
		t.Fatal("the message meant to be invalid validates")
	}
	if _, err := shardfn.Process(context.Background(), deps, bad); err == nil {
		t.Error("Process with the default Validate accepted an invalid message")
	}
	deps.Validate = shardfn.Prevalidated
	if _, err := shardfn.Process(context.Background(), deps, p.Messages[0]); err != nil {
		t.Errorf("Process(Prevalidated) of a valid message = %v", err)
	}
}
