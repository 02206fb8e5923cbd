package coordinatesv1

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// BenchmarkGenerateAFDB generates every AFDB golden document once per
// iteration from its record (the structure already parsed).
func BenchmarkGenerateAFDB(b *testing.B) {
	cfg := DefaultConfig()
	gen := new(Generator)
	coordgolden.BenchmarkAFDB(b, golden, func(st *structure.Structure, a *contactsv1.Analysis, id string) (bool, string) {
		d, f := gen.Generate(st, a, id, cfg)
		return d != nil, f
	})
}
