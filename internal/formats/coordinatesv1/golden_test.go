package coordinatesv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
)

// TestGolden generates every golden line's file from its confind-mini
// analysis record: each of the 57 documents must be byte-identical (sha1
// and text) with equal metadata (quaternion and translation bit for bit),
// and each filter and reader error as the reference's rules say. Lines
// without a record (pyconfind fails on the file) are checked as far as the
// reader goes here, and end to end through ConFind in the run test.
func TestGolden(t *testing.T) {
	cfg := DefaultConfig()
	coordgolden.Check(t, golden, coordgolden.FromGenerator[Config](new(Generator), columns(cfg), cfg))
}
