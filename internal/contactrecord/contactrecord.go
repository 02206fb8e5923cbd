// Package contactrecord is the analysis record of a structure's
// side-chain contacts, as MarinFold's analyze_structure returns it: the
// residues pyconfind keeps and their contacts with contact degrees. ConFind
// (package confind) builds it; contacts-v1 (package
// formats/contactsv1, whose Analysis it is) and the coordinate formats
// read it. It lives here, below both, so that the algorithm imports no
// format.
package contactrecord

// Analysis is one structure's record: parallel residue arrays (in
// pyconfind's order) and parallel contact arrays (indices into the
// residues, seq_i < seq_j, with their degrees). contactsv1.Validate checks
// it.
type Analysis struct {
	EntryID string
	// GlobalPLDDT is passed through to the output row; nil is null.
	GlobalPLDDT *float64
	ResName     []string
	ResNum      []int64
	ResChain    []string
	ContactI    []int64
	ContactJ    []int64
	Degree      []float64
}
