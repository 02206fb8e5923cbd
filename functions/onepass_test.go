package functions

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/cloudlog"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// callCounter counts the calls a shard delivery makes to the store (Open,
// which on GCS is an attributes call, and the footer reads: ReadAt calls
// reaching an object's last byte) and to the ledger (Fail).
type callCounter struct {
	mu             sync.Mutex
	opens, footers map[string]int
	fails          int
}

type countedStore struct {
	blob.Store
	c *callCounter
	// missing, when set, is read as an object that does not exist.
	missing string
}

func (s countedStore) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	if s.missing != "" && uri == s.missing {
		uri = "gs://in/cif/no-such-object.cif"
	}
	return s.Store.ReadAll(ctx, uri)
}

// OpenGeneration is Open of a pinned manifest generation (blob.Pin), counted
// as an Open.
func (s countedStore) OpenGeneration(ctx context.Context, uri string, gen int64) (blob.Object, error) {
	s.c.mu.Lock()
	s.c.opens[uri]++
	s.c.mu.Unlock()
	o, err := s.Store.(blob.GenerationOpener).OpenGeneration(ctx, uri, gen)
	if err != nil {
		return nil, err
	}
	return countedObject{Object: o, uri: uri, c: s.c}, nil
}

func (s countedStore) Open(ctx context.Context, uri string) (blob.Object, error) {
	s.c.mu.Lock()
	s.c.opens[uri]++
	s.c.mu.Unlock()
	o, err := s.Store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	return countedObject{Object: o, uri: uri, c: s.c}, nil
}

type countedObject struct {
	blob.Object
	uri string
	c   *callCounter
}

func (o countedObject) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) >= o.Size() {
		o.c.mu.Lock()
		o.c.footers[o.uri]++
		o.c.mu.Unlock()
	}
	return o.Object.ReadAt(p, off)
}

type countedLedger struct {
	ledger.Ledger
	c *callCounter
}

func (l countedLedger) Fail(ctx context.Context, s ledger.Shard) error {
	l.c.mu.Lock()
	l.c.fails++
	l.c.mu.Unlock()
	return l.Ledger.Fail(ctx, s)
}

// TestShardFnOnePass: one delivery of a shard opens its manifest on GCS
// once and reads its footer once, and a shard that fails permanently is
// recorded failed once, with its bad row and counts.
func TestShardFnOnePass(t *testing.T) {
	files := testcorpus.Files(t, "afdb")[:3]
	for _, tc := range []struct {
		name      string
		missing   bool // one row's object deleted: the shard fails
		wantState ledger.Status
		wantFails int
	}{
		{name: "done", wantState: ledger.Done},
		{name: "a row's object is missing", missing: true, wantState: ledger.Failed, wantFails: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t)
			ctx := context.Background()
			fx.upload(t, "runs/c.parquet", files)
			cfg, err := FromEnv(testEnv(nil))
			if err != nil {
				t.Fatal(err)
			}
			c := &callCounter{opens: map[string]int{}, footers: map[string]int{}}
			cs := countedStore{Store: fx.store, c: c}
			if tc.missing {
				cs.missing = "gs://in/cif/" + filepath.Base(files[1])
			}
			fx.s = New(cfg, Deps{Store: cs, Ledger: countedLedger{fx.led, c}, Publisher: fx.pub,
				Log: cloudlog.New(fx.logs, slog.LevelDebug, "p")})
			if err := fx.s.Planner(ctx, finalized("manifests", "runs/c.parquet", 1700000000000001, fx.now)); err != nil {
				t.Fatal(err)
			}
			c.opens, c.footers = map[string]int{}, map[string]int{} // the planner's are not the shard's
			msg := fx.pub.msgs[0]
			if err := fx.s.ShardFn(ctx, published(t, msg, fx.now)); err != nil {
				t.Fatalf("ShardFn = %v", err)
			}
			if m := msg.Manifest; c.opens[m] != 1 || c.footers[m] != 1 {
				t.Errorf("manifest %s: %d Open, %d footer reads per delivery; want 1 and 1", m, c.opens[m], c.footers[m])
			}
			if c.fails != tc.wantFails {
				t.Errorf("Ledger.Fail called %d times, want %d", c.fails, tc.wantFails)
			}
			shards, _ := fx.led.Shards(ctx, msg.RunID)
			s := shards[0]
			if s.Status != tc.wantState {
				t.Fatalf("shard = %+v, want %s", s, tc.wantState)
			}
			if tc.missing && (s.EntryID != strings.TrimSuffix(filepath.Base(files[1]), ".cif") || len(s.BadRows) != 1 || s.Counts.RowsIn != 2 || !strings.Contains(s.Error, "fetch")) {
				t.Errorf("failed shard = %+v, want its bad row %s, 2 rows in, the fetch error", s, files[1])
			}
		})
	}
}
