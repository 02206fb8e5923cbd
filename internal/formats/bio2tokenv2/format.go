// Package bio2tokenv2 is the bio2token-v2 document format
// (../shared/formats/bio2token-v2.md): a structure's atoms, tokenized by the
// bio2token encoder, as shuffled <pN> <ATOM> <btC> triples after the
// residue sequence.
//
// The per-row cost is a neural forward pass. In the cloud the shard
// function only adapts and stages coordinates and the accelerator job
// (package tpujob) batches them; this Format runs the same encoder inline,
// when the process gives it one (New's OpenEncoder: package formats/inprocess
// opens bio2token/neural's, on the CPU backend), so that the CLI and the
// local runner produce the same documents end to end. The package itself
// links no encoder: the Cloud Functions build it without one.
package bio2tokenv2

import (
	"encoding/json"
	"fmt"
	"strconv"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Name is the format's identifier.
const Name = "bio2token-v2"

// Option keys.
const (
	// OptWeights is required: a checkpoint path (the official PyTorch
	// Lightning file), "generated:SEED" for generated test weights, or a
	// gs:// URI of the checkpoint in the cloud, where the tokenize job
	// (tpujob) reads its own copy (FOLDCORPUS_TOKENIZE_WEIGHTS) and the
	// functions only adapt and stage.
	OptWeights = "weights"
	// OptBackend is the GoMLX backend ("go" by default).
	OptBackend = "backend"
	// OptRungs is the length ladder's rungs per octave (default 4).
	OptRungs = "rungs"
)

// Options configure the format.
type Options struct {
	Weights string
	Backend string
	Rungs   int
}

// ParseOptions reads the run's option map; absent knobs take defaults,
// unknown bio2token knobs are errors.
func ParseOptions(kv map[string]string) (Options, error) {
	o := Options{Weights: kv[OptWeights], Backend: kv[OptBackend], Rungs: b2t.DefaultRungs}
	if o.Backend == "" {
		o.Backend = "go"
	}
	if v, ok := kv[OptRungs]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 16 {
			return o, fmt.Errorf("%s: option %s=%q: want an integer in [1, 16]", Name, OptRungs, v)
		}
		o.Rungs = n
	}
	if o.Weights == "" {
		return o, fmt.Errorf("%s: option %s is required: the bio2token checkpoint path, or generated:SEED for generated test weights", Name, OptWeights)
	}
	return o, nil
}

// Encoder tokenizes a batch of adapted structures (inputs[b.Items[r]] in
// row r) and returns their codes in the order of b.Items:
// *bio2token/neural.Encoder.
type Encoder interface {
	RunBatch(device int, b b2t.Batch, inputs []*b2t.Input) ([][]int32, error)
}

// OpenEncoder starts the inline encoder of the options' weights and
// backend (formats/inprocess.OpenEncoder).
type OpenEncoder func(Options) (Encoder, error)

// Format generates bio2token-v2 documents with an inline encoder.
type Format struct {
	opts   Options
	enc    Encoder
	ladder []int
}

// New returns the format; open starts its inline encoder. Programs
// compile lazily, once per length bucket, with one row each (on a CPU,
// batching buys no throughput and a row pads to at most its bucket).
// With remote (gs://) weights it opens nothing: such a format adapts (the cloud
// shard function stages its inputs for the tokenize job, which reads the
// checkpoint), and Generate fails with an error saying so. Other weights
// need open; without it (the Cloud Functions, which carry no encoder) New
// fails naming the weights.
func New(opts Options, open OpenEncoder) (*Format, error) {
	f := &Format{opts: opts, ladder: b2t.Ladder(opts.Rungs)}
	if !blob.IsLocal(opts.Weights) {
		return f, nil
	}
	if open == nil {
		return nil, fmt.Errorf("%s: weights %s: this process runs no bio2token encoder (the Cloud Functions only adapt and stage inputs for the tokenize job, which reads the checkpoint from Cloud Storage): give weights=gs://BUCKET/PATH, or run it with the CLI", Name, opts.Weights)
	}
	enc, err := open(opts)
	if err != nil {
		return nil, err
	}
	f.enc = enc
	return f, nil
}

// NewFromOptions is New without an encoder, for the format registry
// (package formats).
func NewFromOptions(kv map[string]string) (format.Format, error) {
	return Constructor(nil)(kv)
}

// Constructor is the registry's constructor of formats with the encoder
// open starts.
func Constructor(open OpenEncoder) func(kv map[string]string) (format.Format, error) {
	return func(kv map[string]string) (format.Format, error) {
		o, err := ParseOptions(kv)
		if err != nil {
			return nil, err
		}
		return New(o, open)
	}
}

// Encoder is the format's encoder; nil with gs:// weights.
func (f *Format) Encoder() Encoder { return f.enc }

func (f *Format) Name() string                   { return Name }
func (f *Format) Kind() format.InputKind         { return format.FromStructure }
func (f *Format) RecordColumns() []format.Column { return nil }

// Columns are the format's own output columns; the pipeline adds entry_id,
// structure, document and sha1.
func (f *Format) Columns() []format.Column { return Columns() }

// Columns of every bio2token-v2 output, in order.
func Columns() []format.Column {
	return []format.Column{
		{Name: "sequence", Type: format.String},
		{Name: "seq_length", Type: format.Int64},
		{Name: "num_atoms", Type: format.Int64},
		{Name: "num_atoms_total", Type: format.Int64},
		{Name: "truncated", Type: format.Bool},
		{Name: "num_tokens", Type: format.Int64},
	}
}

// Result turns an assembled document (or a filter reason) into the format
// result; tpujob uses it too, so both paths write identical rows.
func Result(doc b2t.Document, filtered string) format.Result {
	if filtered != "" {
		return format.Result{Filtered: filtered, Values: []any{nil, nil, nil, nil, nil, nil}}
	}
	return format.Result{Document: doc.Text, Values: []any{
		doc.Sequence, int64(doc.SeqLength), int64(doc.NumAtoms), int64(doc.NumAtomsTotal), doc.Truncated, int64(doc.NumTokens),
	}}
}

var _ format.Neural = (*Format)(nil)

// Adapt is the CPU part of Generate (format.Neural): the adapted
// structure (*bio2token.Input: canonical atom order, centred) that the
// accelerator job tokenizes, or the filter "too_many_residues". Errors as
// Generate's. Safe for concurrent use.
func (f *Format) Adapt(in format.Input) (any, string, error) {
	adapted, filtered, err := adapt(in)
	if err != nil || filtered != "" {
		return nil, filtered, err
	}
	return adapted, "", nil
}

// EncodeAdapted is the staged encoding of an adapted structure
// (format.Neural): the *bio2token.Input that Adapt returned, as JSON.
// DecodeAdapted reads it back.
func (f *Format) EncodeAdapted(adapted any) ([]byte, error) {
	in, ok := adapted.(*b2t.Input)
	if !ok || in == nil {
		return nil, fmt.Errorf("%s adapted to %T, want *bio2token.Input", Name, adapted)
	}
	return json.Marshal(in)
}

// DecodeAdapted parses one staged input that EncodeAdapted wrote and
// checks it: one residue index per atom, in range, and three coordinates
// per atom, at least one atom.
func DecodeAdapted(data []byte) (*b2t.Input, error) {
	var in *b2t.Input
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("%s input: %w", Name, err)
	}
	if in == nil || len(in.Coords) != 3*in.NumAtoms() || len(in.AtomRes) != in.NumAtoms() || in.NumAtoms() == 0 {
		return nil, fmt.Errorf("%s input: malformed", Name)
	}
	for _, ri := range in.AtomRes {
		if ri < 0 || int(ri) >= len(in.ResNames) {
			return nil, fmt.Errorf("%s input: atom of residue %d of %d", Name, ri, len(in.ResNames))
		}
	}
	return in, nil
}

func adapt(in format.Input) (*b2t.Input, string, error) {
	if in.Structure == nil {
		return nil, "", fmt.Errorf("%s: %s: no structure", Name, in.EntryID)
	}
	adapted, err := b2t.Adapt(in.Structure)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %s: %w", Name, in.EntryID, err)
	}
	if len(adapted.ResNames) > b2t.MaxResidues || b2t.AtomBudget(len(adapted.ResNames)) <= 0 {
		return nil, b2t.FilterTooLong, nil
	}
	return adapted, "", nil
}

// Generate adapts, tokenizes and assembles one structure. A structure that
// cannot be adapted (no model, no atoms) is an error; more than 2,701
// residues is the filter outcome "too_many_residues" (checked before the
// encoder runs). Safe for concurrent use.
func (f *Format) Generate(in format.Input) (format.Result, error) {
	adapted, filtered, err := adapt(in)
	if err != nil {
		return format.Result{}, err
	}
	if filtered != "" {
		return Result(b2t.Document{}, filtered), nil
	}
	if f.enc == nil {
		return format.Result{}, fmt.Errorf("%s: %s: weights %s are read by the tokenize job (tpujob), not inline: give a local checkpoint path, or hand the shard to the tokenize job (FOLDCORPUS_TOKENIZE_TOPIC)", Name, in.EntryID, f.opts.Weights)
	}
	n := adapted.NumAtoms()
	batch := b2t.Batch{Shape: b2t.Shape{Batch: 1, Length: b2t.BucketFor(f.ladder, n)}, Items: []int{0}}
	codes, err := f.enc.RunBatch(0, batch, []*b2t.Input{adapted})
	if err != nil {
		return format.Result{}, fmt.Errorf("%s: %s: %w", Name, in.EntryID, err)
	}
	doc, filtered, err := b2t.Assemble(in.EntryID, adapted, codes[0])
	if err != nil {
		return format.Result{}, err
	}
	return Result(doc, filtered), nil
}
