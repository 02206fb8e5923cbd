package synth

import (
	"math/rand/v2"

	"github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// Backbone returns an adapted bio2token input of n atoms, four per residue
// (N, CA, C, O) of residue type res, with coordinates drawn from rng as
// normal values of the given spread (Å): a stand-in for a staged row where
// only the shapes matter (tests of the accelerator job).
func Backbone(rng *rand.Rand, n int, res string, spread float64) *bio2token.Input {
	in := &bio2token.Input{}
	names := [...]string{"N", "CA", "C", "O"}
	for a := 0; a < n; a++ {
		if a%4 == 0 {
			in.ResNames = append(in.ResNames, res)
		}
		in.AtomRes = append(in.AtomRes, int32(a/4))
		in.AtomNames = append(in.AtomNames, names[a%4])
		for k := 0; k < 3; k++ {
			in.Coords = append(in.Coords, float32(rng.NormFloat64()*spread))
		}
	}
	return in
}
