package tokenize

import (
	"encoding/json"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Add stages one adapted row, in manifest order: adapted is what the
// neural format f returned from Adapt, staged as f encodes it
// (Neural.EncodeAdapted), passthrough its values aligned with
// s.Passthrough. A value f cannot encode, or an encoding that is not one
// JSON value, is an error naming the format (the shard function fails the
// row with it). Not safe for concurrent use.
func (s *Staged) Add(f format.Neural, entryID, structure string, passthrough []any, adapted any) error {
	data, err := f.EncodeAdapted(adapted)
	if err != nil {
		return fmt.Errorf("format %s: staging the adapted input: %w", f.Name(), err)
	}
	if !json.Valid(data) {
		return fmt.Errorf("format %s: staging the adapted input: its encoding is not JSON", f.Name())
	}
	s.Rows = append(s.Rows, StagedRow{EntryID: entryID, Structure: structure, Passthrough: passthrough, Input: data})
	return nil
}
