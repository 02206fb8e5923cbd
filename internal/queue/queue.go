// Package queue is the seam to the message queue that carries one message per
// shard from the planner to the shard workers (Pub/Sub in the cloud, an
// in-process queue locally), and the message format itself.
package queue

import (
	"context"
)

// ShardMessage is the body of one shard message (JSON). It carries everything
// a shard worker needs; attributes "run" and "shard" duplicate RunID and Shard
// for filtering and logs.
type ShardMessage struct {
	RunID     string `json:"run_id"`
	Shard     int    `json:"shard"`
	Total     int    `json:"total"`
	Manifest  string `json:"manifest"`             // URI of the manifest parquet file
	RowGroups []int  `json:"row_groups,omitempty"` // row groups of that file; empty means all
	Format    string `json:"format"`
	Output    string `json:"output"` // URI of the shard's output parquet
	// Columns is the projected manifest column list, fixed by the planner.
	Columns []string `json:"columns"`
	// Options are the run's options (format knobs, URI/text column, lenient mode).
	Options map[string]string `json:"options,omitempty"`
}

// Publisher publishes shard messages.
type Publisher interface {
	// Publish sends msg; it returns once the message is accepted by the
	// queue. Publishing the same message twice delivers it twice: consumers
	// are idempotent through the ledger.
	Publish(ctx context.Context, msg ShardMessage) error
}
