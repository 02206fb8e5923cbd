package neural

import (
	"fmt"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// RunBatch encodes the inputs of b (inputs[b.Items[r]] in row r) on device
// and returns their codes in the order of b.Items.
func (e *Encoder) RunBatch(device int, b b2t.Batch, inputs []*b2t.Input) ([][]int32, error) {
	s := b.Shape
	if len(b.Items) > s.Batch {
		return nil, fmt.Errorf("bio2token: %d inputs for a batch of %d", len(b.Items), s.Batch)
	}
	coords := make([]float32, s.Batch*s.Length*3)
	lengths := make([]int32, s.Batch)
	for r, idx := range b.Items {
		in := inputs[idx]
		if in.NumAtoms() > s.Length {
			return nil, fmt.Errorf("bio2token: input of %d atoms in a batch of length %d", in.NumAtoms(), s.Length)
		}
		copy(coords[r*s.Length*3:], in.Coords)
		lengths[r] = int32(in.NumAtoms())
	}
	codes, err := e.Run(device, s, coords, lengths)
	if err != nil {
		return nil, err
	}
	out := make([][]int32, len(b.Items))
	for r := range b.Items {
		out[r] = append([]int32(nil), codes[r*s.Length:r*s.Length+int(lengths[r])]...)
	}
	return out, nil
}

// CompileLadder compiles the program of every ladder bucket (start-up), so
// that traffic never triggers a compile except for inputs beyond MaxBucket.
func (e *Encoder) CompileLadder(ladder []int) error {
	for _, b := range ladder {
		if err := e.Compile(b2t.ShapeFor(b)); err != nil {
			return err
		}
	}
	return nil
}

// EncodeAll tokenizes inputs on device 0, batched by bucket, and returns
// one code slice per input, in input order.
func (e *Encoder) EncodeAll(ladder []int, inputs []*b2t.Input) ([][]int32, error) {
	atoms := make([]int, len(inputs))
	for i, in := range inputs {
		atoms[i] = in.NumAtoms()
	}
	out := make([][]int32, len(inputs))
	for _, b := range b2t.PlanBatches(ladder, atoms) {
		codes, err := e.RunBatch(0, b, inputs)
		if err != nil {
			return nil, err
		}
		for r, idx := range b.Items {
			out[idx] = codes[r]
		}
	}
	return out, nil
}
