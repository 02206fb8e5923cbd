package coordfront

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// Fingerprint identifies a structure by its block name, its atom count and
// a sample of model 0's atoms (names and coordinates), so that files
// sharing a block name (two model versions of one accession) are told
// apart. It is cheap: at most 64 atoms are read.
func Fingerprint(st *structure.Structure) string {
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
	// the atoms i = 0, step, 2*step, ... of the walk, a residue at a time
	step, i, next := max(1, n/64), 0, 0
	for ci := range chains {
		for ri := range chains[ci].Residues {
			atoms := chains[ci].Residues[ri].Atoms
			for ; next < i+len(atoms); next += step {
				a := &atoms[next-i]
				h.Write([]byte(a.Name))
				for _, v := range [3]float64{a.X, a.Y, a.Z} {
					binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
					h.Write(b[:])
				}
			}
			i += len(atoms)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Replay is an Analyzer that hands back precomputed analyses (records
// ConFind or pyconfind wrote earlier), found by the structure's
// Fingerprint. A structure without one is a permanent error.
func Replay(byFingerprint map[string]*contactsv1.Analysis) Analyzer {
	return func(st *structure.Structure, name string) (*contactsv1.Analysis, error) {
		if a, ok := byFingerprint[Fingerprint(st)]; ok {
			return a, nil
		}
		return nil, derrors.Permanent(fmt.Errorf("%s: no precomputed analysis for this structure", name))
	}
}
