package coordinatesv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

func generated(g *Generator, st *structure.Structure, a *contactsv1.Analysis, id string, cfg Config) coordgolden.Generated {
	d, filtered := g.Generate(st, a, id, cfg)
	if d == nil {
		return coordgolden.Generated{Filtered: filtered}
	}
	return coordgolden.Generated{SHA1: d.SHA1(), Text: d.Text, NumTokens: d.NumTokens, Metadata: d.Metadata()}
}

// TestGolden generates every golden line's file from its confind-mini
// analysis record: each of the 57 documents must be byte-identical (sha1
// and text) with equal metadata (quaternion and translation bit for bit),
// and each filter and reader error as the reference's rules say. Lines
// without a record (pyconfind fails on the file) are checked as far as the
// reader goes here, and end to end through ConFind in the run test.
func TestGolden(t *testing.T) {
	cfg := DefaultConfig()
	g := new(Generator) // one for every line: reused memory must not leak state
	coordgolden.Check(t, golden, func(st *structure.Structure, a *contactsv1.Analysis, id string) coordgolden.Generated {
		return generated(g, st, a, id, cfg)
	})
}
