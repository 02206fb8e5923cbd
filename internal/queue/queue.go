// Package queue is the seam to the message queue that carries one message per
// shard from the planner to the shard workers (Pub/Sub in the cloud, an
// in-process queue locally), and the message format itself.
package queue

import (
	"context"
	"fmt"
)

// ShardMessage is the body of one shard message (JSON). It carries everything
// a shard worker needs; attributes "run" and "shard" duplicate RunID and Shard
// for filtering and logs.
type ShardMessage struct {
	RunID    string `json:"run_id"`
	Shard    int    `json:"shard"`
	Total    int    `json:"total"`
	Manifest string `json:"manifest"` // URI of the manifest parquet file
	// ManifestGeneration, when non-zero, is the generation of the manifest
	// object the run was planned on (GCS): the shard reads that generation,
	// and fails permanently if it no longer exists, instead of reading an
	// object written over it since. Zero (local runs, older messages): the
	// live object.
	ManifestGeneration int64  `json:"manifest_generation,omitempty"`
	RowGroups          []int  `json:"row_groups,omitempty"` // row groups of that file; empty means all
	Format             string `json:"format"`
	Output             string `json:"output"` // URI of the shard's output parquet
	// Columns is the projected manifest column list, fixed by the planner.
	Columns []string `json:"columns"`
	// Options are the format's options (knobs passed to registry.New).
	Options map[string]string `json:"options,omitempty"`
	// URIColumn names the projected column of per-row object URIs, and
	// TextColumn the inline mmCIF text column: exactly one is set for
	// structure formats, neither for record formats.
	URIColumn  string `json:"uri_column,omitempty"`
	TextColumn string `json:"text_column,omitempty"`
	// LenientMissing skips (and counts) rows whose object does not exist
	// instead of failing the shard. Opt-in per run.
	LenientMissing bool `json:"lenient_missing,omitempty"`
	// LenientParse skips (counts, and names with its error) rows whose
	// object fails to parse instead of failing the shard. Opt-in per run.
	LenientParse bool `json:"lenient_parse,omitempty"`
}

// Validate checks that the message is complete and self-consistent. It says
// nothing about whether the URIs are allowed (adapters check that).
func (m ShardMessage) Validate() error {
	switch {
	case m.RunID == "":
		return fmt.Errorf("shard message: empty run_id")
	case m.Total <= 0 || m.Shard < 0 || m.Shard >= m.Total:
		return fmt.Errorf("shard message: shard %d of %d out of range", m.Shard, m.Total)
	case m.Manifest == "" || m.Output == "" || m.Format == "":
		return fmt.Errorf("shard message: manifest, output and format are required")
	case m.ManifestGeneration < 0:
		return fmt.Errorf("shard message: negative manifest_generation %d", m.ManifestGeneration)
	case len(m.Columns) == 0:
		return fmt.Errorf("shard message: no projected columns")
	case m.URIColumn != "" && m.TextColumn != "":
		return fmt.Errorf("shard message: both uri_column and text_column set")
	}
	for _, rg := range m.RowGroups {
		if rg < 0 {
			return fmt.Errorf("shard message: negative row group %d", rg)
		}
	}
	return nil
}

// Publisher publishes shard messages.
type Publisher interface {
	// Publish sends msg; it returns once the message is accepted by the
	// queue. Publishing the same message twice delivers it twice: consumers
	// are idempotent through the ledger.
	Publish(ctx context.Context, msg ShardMessage) error
	// PublishAll sends every message of msgs (letting the queue batch them)
	// and returns once all are accepted. Not atomic: on error, messages
	// before the failing one may be out; publishing again is safe for the
	// same reason as for Publish.
	PublishAll(ctx context.Context, msgs []ShardMessage) error
}
