package cropsv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

func generated(st *structure.Structure, a *contactsv1.Analysis, id string, cfg Config) coordgolden.Generated {
	d, filtered := Generate(st, a, id, cfg)
	if d == nil {
		return coordgolden.Generated{Filtered: filtered}
	}
	return coordgolden.Generated{SHA1: d.SHA1, Text: d.Text, NumTokens: d.NumTokens, Metadata: d.Metadata()}
}

// TestGolden: as ccoordv1's, for contacts-and-crops-v1.
func TestGolden(t *testing.T) {
	cfg := DefaultConfig()
	coordgolden.Check(t, golden, func(st *structure.Structure, a *contactsv1.Analysis, id string) coordgolden.Generated {
		return generated(st, a, id, cfg)
	})
}
