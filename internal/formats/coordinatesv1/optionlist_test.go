package coordinatesv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
)

// TestGoldenOptions: every option of every golden line is listed by
// OptionList with the value the reference ran with as its default, and
// Configure accepts the line's options (with rotlib) as the default
// configuration (coordgolden.CheckOptions).
func TestGoldenOptions(t *testing.T) {
	coordgolden.CheckOptions(t, golden, Kind.OptionList(), Kind.Configure, DefaultConfig())
}
