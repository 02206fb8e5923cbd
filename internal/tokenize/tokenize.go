// Package tokenize is the hand-off between the shard function of a neural
// format (format.Neural, e.g. bio2token-v2) and the accelerator job
// (package tpujob): the staged inputs of one shard (Staged, written
// create-only by Stage) and the tokenize Request that names them. It is
// the one place that defines the staging format, the same for every
// neural format: each staged row carries its format's own encoding of the
// adapted value (Neural.EncodeAdapted), which the job side of that format
// decodes. It imports no cloud package and no format package.
//
// Shard functions of a neural format fetch, parse and adapt as usual, then
// Stage the adapted inputs in the bucket and publish a Request to the
// tokenize topic (Request.Message gives the body and attributes).
package tokenize

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Request is the JSON body of one tokenize message: one shard. Attributes
// "run" and "shard" duplicate RunID and Shard for filtering and logs.
type Request struct {
	RunID  string `json:"run_id"`
	Shard  int    `json:"shard"`
	Total  int    `json:"total"`
	Format string `json:"format"` // the neural format, e.g. "bio2token-v2"
	// Staged is the URI of the shard's staged inputs (see Staged).
	Staged string `json:"staged"`
	// Output is the URI of the shard's output parquet.
	Output string `json:"output"`
}

// Validate reports a request that can never succeed.
func (r Request) Validate() error {
	switch {
	case r.RunID == "":
		return errors.New("tokenize request without run_id")
	case r.Shard < 0 || r.Total <= 0 || r.Shard >= r.Total:
		return fmt.Errorf("tokenize request shard %d of %d", r.Shard, r.Total)
	case r.Format == "":
		return errors.New("tokenize request without format")
	case r.Staged == "" || r.Output == "":
		return errors.New("tokenize request without staged or output URI")
	}
	return nil
}

// Message attributes of a tokenize request (they duplicate RunID and Shard).
const (
	AttrRun   = "run"
	AttrShard = "shard"
)

// Message is the request's Pub/Sub body (JSON) and attributes.
func (r Request) Message() (data []byte, attrs map[string]string, err error) {
	if err := r.Validate(); err != nil {
		return nil, nil, err
	}
	data, err = json.Marshal(r)
	return data, map[string]string{AttrRun: r.RunID, AttrShard: strconv.Itoa(r.Shard)}, err
}

// DecodeRequest parses a message body; a malformed body is permanent.
func DecodeRequest(data []byte) (Request, error) {
	var r Request
	if err := json.Unmarshal(data, &r); err != nil {
		return r, derrors.Permanent(fmt.Errorf("tokenize request: %w", err))
	}
	if err := r.Validate(); err != nil {
		return r, derrors.Permanent(err)
	}
	return r, nil
}

// Staged is one shard's staged inputs, written by the shard function: the
// accounting of the rows it already settled (rows_in counts every row;
// filtered and skipped rows are not staged), the passthrough columns and
// one adapted structure per remaining row, in manifest order.
type Staged struct {
	Accounting  corpus.Accounting `json:"accounting"`
	Passthrough []format.Column   `json:"passthrough,omitempty"`
	Rows        []StagedRow       `json:"rows"`
}

// StagedRow is one adapted structure.
type StagedRow struct {
	EntryID     string `json:"entry_id"`
	Structure   string `json:"structure"`
	Passthrough []any  `json:"passthrough,omitempty"` // aligned with Staged.Passthrough
	// Input is the adapted value as its format encoded it
	// (format.Neural.EncodeAdapted: one JSON value, written as it is).
	Input json.RawMessage `json:"input"`
}

// EncodeStaged serializes s (gzip-compressed JSON).
func EncodeStaged(s *Staged) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(s); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeStaged parses a staged object; passthrough values get their
// column's Go type back (int64, float64, string, bool, lists). Rows'
// inputs stay their format's encoding (the job side of the format decodes
// and checks them); a row without one is malformed. Any defect is a
// permanent error.
func DecodeStaged(data []byte) (*Staged, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("staged object: %w", err))
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("staged object: %w", err))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var s Staged
	if err := dec.Decode(&s); err != nil {
		return nil, derrors.Permanent(fmt.Errorf("staged object: %w", err))
	}
	for i := range s.Rows {
		r := &s.Rows[i]
		if len(r.Input) == 0 || string(r.Input) == "null" {
			return nil, derrors.Permanent(fmt.Errorf("staged row %d (%s): no input", i, r.EntryID))
		}
		if len(r.Passthrough) != len(s.Passthrough) {
			return nil, derrors.Permanent(fmt.Errorf("staged row %d (%s): %d passthrough values for %d columns", i, r.EntryID, len(r.Passthrough), len(s.Passthrough)))
		}
		for j, c := range s.Passthrough {
			v, err := typed(c.Type, r.Passthrough[j])
			if err != nil {
				return nil, derrors.Permanent(fmt.Errorf("staged row %d (%s) column %s: %w", i, r.EntryID, c.Name, err))
			}
			r.Passthrough[j] = v
		}
	}
	return &s, nil
}

func typed(t format.ColumnType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	list := func(elem format.ColumnType) (any, error) {
		xs, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%T is not a list", v)
		}
		var out any
		switch elem {
		case format.Int64:
			out = make([]int64, 0, len(xs))
		case format.Float64:
			out = make([]float64, 0, len(xs))
		default:
			out = make([]string, 0, len(xs))
		}
		for _, x := range xs {
			e, err := typed(elem, x)
			if err != nil {
				return nil, err
			}
			switch o := out.(type) {
			case []int64:
				out = append(o, e.(int64))
			case []float64:
				out = append(o, e.(float64))
			case []string:
				out = append(o, e.(string))
			}
		}
		return out, nil
	}
	switch t {
	case format.String:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case format.Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case format.Int64:
		if n, ok := v.(json.Number); ok {
			return n.Int64()
		}
	case format.Float64:
		if n, ok := v.(json.Number); ok {
			return n.Float64()
		}
	case format.Int64List:
		return list(format.Int64)
	case format.Float64List:
		return list(format.Float64)
	case format.StringList:
		return list(format.String)
	}
	return nil, fmt.Errorf("value %v (%T) does not fit column type %d", v, v, t)
}

// Stage writes s to uri create-only. Idempotent: a retry that finds the
// object with the same bytes succeeds; different bytes are a permanent
// error. Transient store errors are returned as they are.
func Stage(ctx context.Context, store blob.Store, uri string, s *Staged) (err error) {
	defer derrors.Wrap(&err, "tokenize.Stage(%s)", uri)
	data, err := EncodeStaged(s)
	if err != nil {
		return derrors.Permanent(err)
	}
	_, err = CreateOrVerify(ctx, store, uri, data)
	return err
}

// CreateOrVerify creates the object, or verifies that an existing one has
// the same bytes (a retry of a write that succeeded; verified is then
// true). Different bytes are a permanent error; store errors are returned
// as they are.
func CreateOrVerify(ctx context.Context, store blob.Store, uri string, data []byte) (verified bool, err error) {
	err = store.Create(ctx, uri, data)
	if err == nil {
		return false, nil
	}
	if !errors.Is(err, derrors.ErrExists) {
		return false, err
	}
	old, rerr := store.ReadAll(ctx, uri)
	if rerr != nil {
		return false, rerr
	}
	if sha256.Sum256(old) != sha256.Sum256(data) {
		return false, derrors.Permanent(fmt.Errorf("%s exists with different content", uri))
	}
	return true, nil
}
