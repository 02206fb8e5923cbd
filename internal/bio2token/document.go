package bio2token

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

const (
	// ContextTokens is the document token budget.
	ContextTokens = 8192
	// MaxResidues is the largest residue count that gets a document (and the
	// number of position tokens <p0>..<p2700>).
	MaxResidues = 2701
	// FilterTooLong is the filter reason for structures with more than
	// MaxResidues kept residues (or no room for a single atom).
	FilterTooLong = "too_many_residues"
)

// Document is one assembled bio2token-v2 document and its metadata.
type Document struct {
	Text          string
	Sequence      string // one-letter, kept residues
	SeqLength     int    // kept residues
	NumAtoms      int    // atoms written (after sampling)
	NumAtomsTotal int    // kept atoms
	Truncated     bool   // atoms were sampled down to the budget
	NumTokens     int    // 4 + 2*SeqLength + 3*NumAtoms
}

// Seed is the document seed: the first 8 bytes of SHA-256(entryID), big-endian.
func Seed(entryID string) uint64 {
	sum := sha256.Sum256([]byte(entryID))
	return binary.BigEndian.Uint64(sum[:8])
}

// AtomBudget is how many atom triples fit beside nRes sequence tokens.
func AtomBudget(nRes int) int { return (ContextTokens - 4 - 2*nRes) / 3 }

// Assemble writes the document of in given one code per kept atom. It
// returns a filter reason (and no document) when the structure has more
// than MaxResidues residues or no atom budget. Atoms beyond the budget are
// sampled with CPython's Random(seed).sample over the canonical atom order;
// the triples are then shuffled by a fresh Random(seed). Pure and
// deterministic; an error means codes do not match in.
func Assemble(entryID string, in *Input, codes []int32) (doc Document, filtered string, err error) {
	if len(codes) != in.NumAtoms() {
		return Document{}, "", fmt.Errorf("bio2token: %s: %d codes for %d atoms", entryID, len(codes), in.NumAtoms())
	}
	nRes := len(in.ResNames)
	budget := AtomBudget(nRes)
	if nRes > MaxResidues || budget <= 0 {
		return Document{}, FilterTooLong, nil
	}
	seed := Seed(entryID)
	atoms := make([]int, in.NumAtoms())
	for i := range atoms {
		atoms[i] = i
	}
	truncated := false
	if len(atoms) > budget {
		atoms = pyrandom.Sample(pyrandom.New(seed), atoms, budget)
		truncated = true
	}
	triples := make([]string, len(atoms))
	for i, a := range atoms {
		c := codes[a]
		if c < 0 || c >= NumCodes {
			return Document{}, "", fmt.Errorf("bio2token: %s: atom %d: code %d outside [0, %d)", entryID, a, c, NumCodes)
		}
		triples[i] = "<p" + strconv.Itoa(int(in.AtomRes[a])) + "> " + atomToken(in.AtomNames[a]) + " <bt" + strconv.Itoa(int(c)) + ">"
	}
	pyrandom.Shuffle(pyrandom.New(seed), triples)

	var b strings.Builder
	b.Grow(16*nRes + 20*len(triples) + 64)
	b.WriteString("<bio2token-v2> <begin_sequence>")
	for i, r := range in.ResNames {
		b.WriteString(" <p")
		b.WriteString(strconv.Itoa(i))
		b.WriteString("> ")
		b.WriteString(residueToken(r))
	}
	b.WriteString(" <begin_statements>")
	for _, t := range triples {
		b.WriteByte(' ')
		b.WriteString(t)
	}
	b.WriteString(" <end>")
	return Document{
		Text:          b.String(),
		Sequence:      in.Sequence(),
		SeqLength:     nRes,
		NumAtoms:      len(atoms),
		NumAtomsTotal: in.NumAtoms(),
		Truncated:     truncated,
		NumTokens:     4 + 2*nRes + 3*len(atoms),
	}, "", nil
}

func atomToken(name string) string {
	if atom37[name] {
		return "<" + name + ">"
	}
	return "<UNK>"
}

func residueToken(name string) string {
	if residue20[name] {
		return "<" + name + ">"
	}
	return "<UNK>"
}
