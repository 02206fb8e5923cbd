package tokenize

import (
	"fmt"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// Add stages one adapted row, in manifest order: adapted is what the neural
// format named formatName returned from Adapt (format.Neural), passthrough
// its values aligned with s.Passthrough. An adapted value of a type this
// staging format does not carry is an error naming the format and the type
// (the shard function fails the row with it). Not safe for concurrent use.
func (s *Staged) Add(formatName, entryID, structure string, passthrough []any, adapted any) error {
	in, ok := adapted.(*b2t.Input)
	if !ok || in == nil {
		return fmt.Errorf("format %s adapted to %T, want *bio2token.Input", formatName, adapted)
	}
	s.Rows = append(s.Rows, StagedRow{EntryID: entryID, Structure: structure, Passthrough: passthrough, Input: in})
	return nil
}
