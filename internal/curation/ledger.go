package curation

import "fmt"

// LedgerRow is exp222's per-entry ledger row (LEDGER_SCHEMA, 11 fields).
type LedgerRow struct {
	PDBID                 string   `json:"pdb_id"`
	ASUChainsKept         int      `json:"asu_chains_kept"`
	ASUChainsDropped      int      `json:"asu_chains_dropped"`
	ASUDropReasons        []string `json:"asu_drop_reasons"`
	MonomerDocs           int      `json:"monomer_docs"`
	MonomerFailures       []string `json:"monomer_failures"`
	AssemblyChainsKept    int      `json:"assembly_chains_kept"`
	AssemblyChainsDropped int      `json:"assembly_chains_dropped"`
	AssemblyDropReasons   []string `json:"assembly_drop_reasons"`
	MultimerStatus        string   `json:"multimer_status"`
	Error                 *string  `json:"error"`
}

// DocumentOutcome is what the document step made of the entry: how many
// monomer documents it wrote, its monomer failures (exp222's text, e.g.
// "B: unserializable"), and, when the multimer went on to it
// (Result.Multimer set), its status (ok, unserializable,
// collapsed_to_monomer, or error with MultimerError).
type DocumentOutcome struct {
	MonomerDocs     int
	MonomerFailures []string
	MultimerStatus  string
	MultimerError   string // exp222's "multimer: <type>: <message>" when MultimerStatus is error
}

// Ledger is the entry's ledger row: curation's fields from r, the document
// step's from d. It is an error to leave the status of a multimer that
// went on to the document step empty, or to give one for a multimer that
// did not.
func (r *Result) Ledger(pdbID string, d DocumentOutcome) (LedgerRow, error) {
	row := LedgerRow{
		PDBID:                 pdbID,
		ASUChainsKept:         len(r.ASU.Kept),
		ASUChainsDropped:      len(r.ASU.Dropped),
		ASUDropReasons:        r.ASU.Reasons(),
		MonomerDocs:           d.MonomerDocs,
		MonomerFailures:       append([]string{}, d.MonomerFailures...),
		AssemblyChainsKept:    len(r.Assembly.Kept),
		AssemblyChainsDropped: len(r.Assembly.Dropped),
		AssemblyDropReasons:   r.Assembly.Reasons(),
		MultimerStatus:        r.MultimerStatus,
	}
	errText := r.Error
	switch {
	case r.Multimer != nil && d.MultimerStatus == "":
		return row, fmt.Errorf("ledger %s: the multimer went on to the document step but has no status", pdbID)
	case r.Multimer == nil && d.MultimerStatus != "":
		return row, fmt.Errorf("ledger %s: multimer status %q given, but curation decided %q", pdbID, d.MultimerStatus, r.MultimerStatus)
	case r.Multimer != nil:
		row.MultimerStatus = d.MultimerStatus
		if d.MultimerError != "" {
			errText = d.MultimerError
		}
	}
	if errText != "" {
		row.Error = &errText
	}
	return row, nil
}
