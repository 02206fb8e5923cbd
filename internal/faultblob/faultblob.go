// Package faultblob wraps a blob.Store to inject latency and failures into
// whole-object reads, for benchmarks (`foldcorpus bench shard`) and tests.
package faultblob

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Store delegates to Inner. Safe for concurrent use.
type Store struct {
	blob.Store
	// Latency is added to every ReadAll (honouring ctx).
	Latency time.Duration
	// Transient makes ReadAll of URIs containing this substring fail with a
	// transient error (empty: never).
	Transient string
	// InFlight and MaxInFlight count concurrent ReadAll calls.
	InFlight, MaxInFlight atomic.Int64
	// Reads counts ReadAll calls.
	Reads atomic.Int64
}

// New wraps inner with a per-read latency.
func New(inner blob.Store, latency time.Duration) *Store {
	return &Store{Store: inner, Latency: latency}
}

// ReadAll waits Latency, then reads through the inner store.
func (s *Store) ReadAll(ctx context.Context, uri string) ([]byte, error) {
	n := s.InFlight.Add(1)
	defer s.InFlight.Add(-1)
	for {
		m := s.MaxInFlight.Load()
		if n <= m || s.MaxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	s.Reads.Add(1)
	if s.Latency > 0 {
		t := time.NewTimer(s.Latency)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	if s.Transient != "" && strings.Contains(uri, s.Transient) {
		return nil, derrors.Transient(fmt.Errorf("faultblob: injected 503 for %s", uri))
	}
	return s.Store.ReadAll(ctx, uri)
}

// OpenGeneration forwards to the inner store's blob.GenerationOpener, so a
// wrapped GCS store still reads pinned manifest generations; an inner store
// without generations gives a permanent error.
func (s *Store) OpenGeneration(ctx context.Context, uri string, generation int64) (blob.Object, error) {
	g, ok := s.Store.(blob.GenerationOpener)
	if !ok {
		return nil, derrors.Permanent(fmt.Errorf("faultblob: generation %d of %s: the inner store (%T) has no object generations", generation, uri, s.Store))
	}
	return g.OpenGeneration(ctx, uri, generation)
}
