// Package tpujob is the accelerator batch job of the neural formats
// (format.Neural): it pulls tokenize requests from its Pub/Sub
// subscription, decodes each shard's staged rows with the Model of the
// request's format (one table: bio2token-v2 is built in, Register adds
// another), buckets every staged structure by length, runs fixed-shape
// batches on every accelerator device of the host with programs compiled
// once at start-up, assembles the documents, writes each shard's parquet
// create-only, marks the shard done in the ledger, and only then acks.
//
// Shard functions of a neural format fetch, parse and adapt as usual, then
// Stage the adapted coordinates in the bucket and publish a Request to the
// tokenize topic (package internal/tokenize defines both, free of cloud
// imports, so that the shard function can use them; the names below are
// aliases).
package tpujob

import (
	"context"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/tokenize"
)

type (
	// Request is one tokenize message (see tokenize.Request).
	Request = tokenize.Request
	// Staged is one shard's staged inputs (see tokenize.Staged).
	Staged = tokenize.Staged
	// StagedRow is one adapted structure (see tokenize.StagedRow).
	StagedRow = tokenize.StagedRow
)

// DecodeRequest is tokenize.DecodeRequest.
func DecodeRequest(data []byte) (Request, error) { return tokenize.DecodeRequest(data) }

// EncodeStaged is tokenize.EncodeStaged.
func EncodeStaged(s *Staged) ([]byte, error) { return tokenize.EncodeStaged(s) }

// DecodeStaged is tokenize.DecodeStaged.
func DecodeStaged(data []byte) (*Staged, error) { return tokenize.DecodeStaged(data) }

// Stage is tokenize.Stage.
func Stage(ctx context.Context, store blob.Store, uri string, s *Staged) error {
	return tokenize.Stage(ctx, store, uri, s)
}

func createOrVerify(ctx context.Context, store blob.Store, uri string, data []byte) (bool, error) {
	return tokenize.CreateOrVerify(ctx, store, uri, data)
}
