package shardfn

import (
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// SeqLenColumn is the manifest column of a row's sequence length (the AFDB
// manifests carry it). Where a row has one, its structure's length
// (SeqLenResidues) is checked against it: a file cut at a line boundary
// inside _atom_site parses as a shorter protein, without error (gemmi reads
// it so too). A row that disagrees is counted and named as suspect in the
// shard's accounting (corpus.Accounting.SuspectSeqLen, Suspects); its
// document is written as any other.
const SeqLenColumn = "seq_len"

// SeqLenResidues is a structure's length as the AFDB manifests count
// seq_len: the polymer residues (structure.Chain.Polymer) of its first
// model's chains. For an AFDB model (one chain) it is the residue count
// contacts-and-distances-v2 writes as its seq_len.
func SeqLenResidues(s *structure.Structure) int64 {
	if s == nil || len(s.Models) == 0 {
		return 0
	}
	var n int64
	for i := range s.Models[0].Chains {
		n += int64(len(s.Models[0].Chains[i].Polymer()))
	}
	return n
}

// seqLenCheck says how the row's structure st disagrees with the row's
// seq_len ("" when it agrees, or the row has no seq_len: the column is not
// read, or the value is null or not positive).
func seqLenCheck(rows *manifest.Rows, vals []any, st *structure.Structure) string {
	j := rows.Index(SeqLenColumn)
	if j < 0 {
		return ""
	}
	want, ok := vals[j].(int64)
	if !ok || want <= 0 { // null, or a placeholder: no length to check
		return ""
	}
	if got := SeqLenResidues(st); got != want {
		return fmt.Sprintf("seq_len %d in the manifest, %d residues in the structure", want, got)
	}
	return ""
}

// boundError cuts a row's error to ledger.MaxBadRowError bytes, so that a
// shard that skips many rows keeps a footer of bounded size per row.
func boundError(e string) string {
	if len(e) > ledger.MaxBadRowError {
		return strings.ToValidUTF8(e[:ledger.MaxBadRowError], "") + "..."
	}
	return e
}
