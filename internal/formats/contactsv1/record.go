package contactsv1

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/foldcorpus/foldcorpus/internal/contactrecord"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Analysis is one pyconfind analysis record: the residues of a structure in
// sequence order (name, author number, chain) and its contacts, each a pair
// of 0-based residue indices seq_i < seq_j with a contact degree > 0.
// It is defined in package contactrecord, below ConFind and the formats,
// so that ConFind builds it without importing a format.
//
// The slices may alias the record they were decoded from; Generate never
// modifies them.
type Analysis = contactrecord.Analysis

// RecordColumns are the manifest columns of an analysis record, as the
// reference's analysis-record writer lays them out.
func RecordColumns() []format.Column {
	return []format.Column{
		{Name: "entry_id", Type: format.String},
		{Name: "seq_len", Type: format.Int64, Nullable: true},
		{Name: "global_plddt", Type: format.Float64, Nullable: true},
		{Name: "num_contacts", Type: format.Int64, Nullable: true},
		{Name: "residue_resname", Type: format.StringList},
		{Name: "residue_resnum", Type: format.Int64List},
		{Name: "residue_chain", Type: format.StringList},
		{Name: "contact_seq_i", Type: format.Int64List},
		{Name: "contact_seq_j", Type: format.Int64List},
		{Name: "contact_degree", Type: format.Float64List},
	}
}

// jsonRecord is an analysis record as JSON (the reference's analysis-record
// row written as a JSON object; null where a value is missing).
type jsonRecord struct {
	EntryID        *string   `json:"entry_id"`
	SeqLen         *int64    `json:"seq_len"`
	GlobalPLDDT    *float64  `json:"global_plddt"`
	NumContacts    *int64    `json:"num_contacts"`
	ResidueResname []string  `json:"residue_resname"`
	ResidueResnum  []int64   `json:"residue_resnum"`
	ResidueChain   []string  `json:"residue_chain"`
	ContactSeqI    []int64   `json:"contact_seq_i"`
	ContactSeqJ    []int64   `json:"contact_seq_j"`
	ContactDegree  []float64 `json:"contact_degree"`
}

// RecordFromJSON decodes one analysis record from a JSON object into the
// map a manifest row becomes (format.Input.Record): the same value types,
// nil for null or absent values. It checks types only; AnalysisFromRecord
// validates.
func RecordFromJSON(data []byte) (map[string]any, error) {
	if rec, err := fastRecordFromJSON(data); err == nil {
		return rec, nil
	}
	var j jsonRecord
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, derrors.Permanent(fmt.Errorf("contacts-v1 record: %w", err))
	}
	rec := map[string]any{}
	opt := func(name string, ok bool, v any) {
		rec[name] = nil
		if ok {
			rec[name] = v
		}
	}
	opt("entry_id", j.EntryID != nil, deref(j.EntryID))
	opt("seq_len", j.SeqLen != nil, deref(j.SeqLen))
	opt("global_plddt", j.GlobalPLDDT != nil, deref(j.GlobalPLDDT))
	opt("num_contacts", j.NumContacts != nil, deref(j.NumContacts))
	opt("residue_resname", j.ResidueResname != nil, j.ResidueResname)
	opt("residue_resnum", j.ResidueResnum != nil, j.ResidueResnum)
	opt("residue_chain", j.ResidueChain != nil, j.ResidueChain)
	opt("contact_seq_i", j.ContactSeqI != nil, j.ContactSeqI)
	opt("contact_seq_j", j.ContactSeqJ != nil, j.ContactSeqJ)
	opt("contact_degree", j.ContactDegree != nil, j.ContactDegree)
	return rec, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// AnalysisFromRecord decodes and validates one manifest record. entryID is
// the manifest's entry_id (the record's own entry_id column is used when it
// is empty). A malformed record is an error wrapping derrors.ErrPermanent
// that names the entry and the offending column or contact.
func AnalysisFromRecord(entryID string, rec map[string]any) (a *Analysis, err error) {
	if entryID == "" {
		entryID, _ = rec["entry_id"].(string)
	}
	defer func() {
		if err != nil {
			err = derrors.Permanent(fmt.Errorf("contacts-v1 record %q: %w", entryID, err))
		}
	}()
	if entryID == "" {
		return nil, fmt.Errorf("entry_id is missing or empty")
	}
	a = &Analysis{EntryID: entryID}
	if a.ResName, err = stringList(rec, "residue_resname"); err != nil {
		return nil, err
	}
	if a.ResNum, err = intList(rec, "residue_resnum"); err != nil {
		return nil, err
	}
	if a.ResChain, err = stringList(rec, "residue_chain"); err != nil {
		return nil, err
	}
	if a.ContactI, err = intList(rec, "contact_seq_i"); err != nil {
		return nil, err
	}
	if a.ContactJ, err = intList(rec, "contact_seq_j"); err != nil {
		return nil, err
	}
	if a.Degree, err = floatList(rec, "contact_degree"); err != nil {
		return nil, err
	}
	if a.GlobalPLDDT, err = optionalFloat(rec, "global_plddt"); err != nil {
		return nil, err
	}
	if n, ok, err := optionalInt(rec, "seq_len"); err != nil {
		return nil, err
	} else if ok && n != int64(len(a.ResName)) {
		return nil, fmt.Errorf("seq_len is %d but residue_resname has %d entries", n, len(a.ResName))
	}
	if n, ok, err := optionalInt(rec, "num_contacts"); err != nil {
		return nil, err
	} else if ok && n != int64(len(a.ContactI)) {
		return nil, fmt.Errorf("num_contacts is %d but contact_seq_i has %d entries", n, len(a.ContactI))
	}
	if err := validate(a); err != nil {
		return nil, err
	}
	return a, nil
}

// Validate checks a record's internal consistency: parallel arrays of
// equal length, every contact 0 <= seq_i < seq_j < seq_len with a finite
// degree > 0, no contact listed twice, and each chain one contiguous run of
// residues. Errors wrap derrors.ErrPermanent and name the entry.
func Validate(a *Analysis) error {
	if err := validate(a); err != nil {
		return derrors.Permanent(fmt.Errorf("contacts-v1 record %q: %w", a.EntryID, err))
	}
	return nil
}

func validate(a *Analysis) error {
	n := len(a.ResName)
	if len(a.ResNum) != n || len(a.ResChain) != n {
		return fmt.Errorf("residue arrays differ in length: residue_resname %d, residue_resnum %d, residue_chain %d",
			n, len(a.ResNum), len(a.ResChain))
	}
	m := len(a.ContactI)
	if len(a.ContactJ) != m || len(a.Degree) != m {
		return fmt.Errorf("contact arrays differ in length: contact_seq_i %d, contact_seq_j %d, contact_degree %d",
			m, len(a.ContactJ), len(a.Degree))
	}
	ascending := true
	for k := 0; k < m; k++ {
		i, j, d := a.ContactI[k], a.ContactJ[k], a.Degree[k]
		if i < 0 || j >= int64(n) || i >= j {
			return fmt.Errorf("contact %d (%d, %d): need 0 <= seq_i < seq_j < seq_len %d", k, i, j, n)
		}
		if !(d > 0) || math.IsInf(d, 0) {
			return fmt.Errorf("contact %d (%d, %d): degree %v is not a finite number > 0", k, i, j, d)
		}
		if k > 0 && ascending {
			pi, pj := a.ContactI[k-1], a.ContactJ[k-1]
			ascending = pi < i || (pi == i && pj < j)
		}
	}
	if !ascending {
		// Records in pyconfind's (seq_i, seq_j) order are duplicate-free by
		// the check above; any other order needs the slow check.
		seen := make(map[[2]int64]int, m)
		for k := 0; k < m; k++ {
			key := [2]int64{a.ContactI[k], a.ContactJ[k]}
			if prev, dup := seen[key]; dup {
				return fmt.Errorf("contact (%d, %d) is listed twice (entries %d and %d)", key[0], key[1], prev, k)
			}
			seen[key] = k
		}
	}
	_, err := chainSegments(a.ResChain)
	return err
}

func stringList(rec map[string]any, col string) ([]string, error) {
	switch v := rec[col].(type) {
	case []string:
		return v, nil
	case nil:
		return nil, fmt.Errorf("column %s is missing or null", col)
	default:
		return nil, fmt.Errorf("column %s is %T, want a list of strings", col, v)
	}
}

func intList(rec map[string]any, col string) ([]int64, error) {
	switch v := rec[col].(type) {
	case []int64:
		return v, nil
	case []int32:
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out, nil
	case nil:
		return nil, fmt.Errorf("column %s is missing or null", col)
	default:
		return nil, fmt.Errorf("column %s is %T, want a list of integers", col, v)
	}
}

func floatList(rec map[string]any, col string) ([]float64, error) {
	switch v := rec[col].(type) {
	case []float64:
		return v, nil
	case []float32:
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out, nil
	case nil:
		return nil, fmt.Errorf("column %s is missing or null", col)
	default:
		return nil, fmt.Errorf("column %s is %T, want a list of floats", col, v)
	}
}

// optionalFloat reads a nullable float column; NaN counts as null, as the
// reference writes NaN for a missing pLDDT.
func optionalFloat(rec map[string]any, col string) (*float64, error) {
	var f float64
	switch v := rec[col].(type) {
	case nil:
		return nil, nil
	case float64:
		f = v
	case float32:
		f = float64(v)
	default:
		return nil, fmt.Errorf("column %s is %T, want a float", col, v)
	}
	if math.IsNaN(f) {
		return nil, nil
	}
	return &f, nil
}

func optionalInt(rec map[string]any, col string) (int64, bool, error) {
	switch v := rec[col].(type) {
	case nil:
		return 0, false, nil
	case int64:
		return v, true, nil
	case int32:
		return int64(v), true, nil
	case int:
		return int64(v), true, nil
	default:
		return 0, false, fmt.Errorf("column %s is %T, want an integer", col, v)
	}
}
