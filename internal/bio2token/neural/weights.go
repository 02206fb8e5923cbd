package neural

import (
	"fmt"
	"strconv"
	"strings"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// LoadWeights resolves a weights spec: a checkpoint file (LoadCheckpoint),
// or "generated:SEED" (full-size generated weights; documents made with
// them are for tests only). It reads the file only.
func LoadWeights(spec string) (*b2t.Weights, error) {
	if seed, ok := strings.CutPrefix(spec, "generated:"); ok {
		n, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bio2token: weights %q: bad seed", spec)
		}
		return b2t.RandomWeights(b2t.DefaultConfig(), n)
	}
	return LoadCheckpoint(spec)
}

// Open loads the weights spec (LoadWeights) and starts an encoder on the
// backend spec (NewBackend).
func Open(weights, backend string) (*Encoder, error) {
	w, err := LoadWeights(weights)
	if err != nil {
		return nil, err
	}
	b, err := NewBackend(backend)
	if err != nil {
		return nil, err
	}
	return NewEncoder(b, w)
}
