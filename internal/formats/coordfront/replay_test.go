package coordfront

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// fingerprintRef is Fingerprint as it was first written (a modulo per
// atom); TestFingerprintMatchesRef holds Fingerprint to it.
func fingerprintRef(st *structure.Structure) string {
	h := sha1.New()
	h.Write([]byte(st.Name))
	var chains []structure.Chain
	if len(st.Models) > 0 {
		chains = st.Models[0].Chains
	}
	n := 0
	for ci := range chains {
		for ri := range chains[ci].Residues {
			n += len(chains[ci].Residues[ri].Atoms)
		}
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
	step, i := max(1, n/64), 0
	for ci := range chains {
		for ri := range chains[ci].Residues {
			for ai := range chains[ci].Residues[ri].Atoms {
				if i%step == 0 {
					a := &chains[ci].Residues[ri].Atoms[ai]
					h.Write([]byte(a.Name))
					for _, v := range []float64{a.X, a.Y, a.Z} {
						binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
						h.Write(b[:])
					}
				}
				i++
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestFingerprintMatchesRef: the same fingerprints for structures of 0 to
// 500 atoms in residues of 0 to 20, over one or more chains and models.
func TestFingerprintMatchesRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 2000 {
		st := &structure.Structure{Name: "S"}
		for range 1 + rng.IntN(2) {
			var m structure.Model
			for range rng.IntN(3) {
				var ch structure.Chain
				for range rng.IntN(40) {
					var r structure.Residue
					for range rng.IntN(21) {
						r.Atoms = append(r.Atoms, structure.Atom{Name: "CA", X: rng.Float64(), Y: rng.Float64(), Z: rng.Float64()})
					}
					ch.Residues = append(ch.Residues, r)
				}
				m.Chains = append(m.Chains, ch)
			}
			st.Models = append(st.Models, m)
		}
		if got, want := Fingerprint(st), fingerprintRef(st); got != want {
			t.Fatalf("case %d: Fingerprint %s, first version %s", i, got, want)
		}
	}
}

// BenchmarkFingerprint compares Fingerprint with fingerprintRef on a
// structure of 4,000 atoms in 400 residues.
func BenchmarkFingerprint(b *testing.B) {
	var ch structure.Chain
	for range 400 {
		var r structure.Residue
		for range 10 {
			r.Atoms = append(r.Atoms, structure.Atom{Name: "CA", X: 1, Y: 2, Z: 3})
		}
		ch.Residues = append(ch.Residues, r)
	}
	st := &structure.Structure{Name: "S", Models: []structure.Model{{Chains: []structure.Chain{ch}}}}
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			Fingerprint(st)
		}
	})
	b.Run("ref", func(b *testing.B) {
		for b.Loop() {
			fingerprintRef(st)
		}
	})
}
