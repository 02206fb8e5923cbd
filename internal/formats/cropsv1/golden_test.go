package cropsv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
)

// TestGolden: as coordinatesv1's, for contacts-and-crops-v1.
func TestGolden(t *testing.T) {
	cfg := DefaultConfig()
	coordgolden.Check(t, golden, coordgolden.FromGenerator[Config](new(Generator), columns(cfg), cfg))
}
