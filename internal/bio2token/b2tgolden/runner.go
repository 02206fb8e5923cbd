package b2tgolden

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"sync"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
)

// Runner runs the tokenize job's batches (it satisfies tpujob.Runner) on a
// full-size encoder and records each input's codes, by its coordinates.
// To keep the pure-Go CPU backend within test time and memory it leaves
// out a batch's empty rows and runs at most MaxRows rows at once: rows are
// independent in the graph (one DotGeneral algorithm, every op per row),
// so the used rows compute what they compute in the full-batch program.
// Compile is a no-op (programs compile on first use).
type Runner struct {
	Enc     *neural.Encoder
	MaxRows int

	mu    sync.Mutex
	codes map[[32]byte][]int32
	rows  []int
}

// Compile does nothing: the trimmed shapes compile when first run.
func (r *Runner) Compile(b2t.Shape) error { return nil }

// Compiles is the encoder's compile count.
func (r *Runner) Compiles() int { return r.Enc.Compiles() }

// NumDevices is the encoder's device count.
func (r *Runner) NumDevices() int { return r.Enc.NumDevices() }

// RunBatch runs b's used rows, padded to b's length, in sub-batches of at
// most MaxRows rows.
func (r *Runner) RunBatch(device int, b b2t.Batch, inputs []*b2t.Input) ([][]int32, error) {
	maxRows := max(1, r.MaxRows)
	var out [][]int32
	for lo := 0; lo < len(b.Items); lo += maxRows {
		items := b.Items[lo:min(len(b.Items), lo+maxRows)]
		codes, err := r.Enc.RunBatch(device, b2t.Batch{Shape: b2t.Shape{Batch: len(items), Length: b.Shape.Length}, Items: items}, inputs)
		if err != nil {
			return nil, err
		}
		out = append(out, codes...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.codes == nil {
		r.codes = map[[32]byte][]int32{}
	}
	r.rows = append(r.rows, len(b.Items))
	for i, idx := range b.Items {
		r.codes[coordsKey(inputs[idx])] = out[i]
	}
	return out, nil
}

// Codes returns the codes the runner computed for in (found by its
// coordinates), or false.
func (r *Runner) Codes(in *b2t.Input) ([]int32, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.codes[coordsKey(in)]
	return c, ok
}

// Batches returns the number of structures in each batch the job ran.
func (r *Runner) Batches() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.rows...)
}

func coordsKey(in *b2t.Input) [32]byte {
	raw := make([]byte, 4*len(in.Coords))
	for i, v := range in.Coords {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return sha256.Sum256(raw)
}
