package pdbunits

import (
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
)

// Row is one of exp222's document rows: the contacts-v1 document and its
// metadata row (global_plddt zeroed, as exp222 decided: a crystal
// structure's B-factor is no pLDDT) and the columns exp222 adds.
type Row struct {
	Doc             *contactsv1.Document
	Analysis        *contactsv1.Analysis // the record the document was built from
	PDBID           string
	Subset          string
	ReleaseDate     string
	Resolution      *float64
	Method          string
	EntityIDs       []string
	ClusterIDs      []int64
	ASUChainIDs     []string
	ResolvedSeqSHA1 string
}

func newRow(subset string, meta Meta, doc *contactsv1.Document, a *contactsv1.Analysis, entities []string, clusters []int64, asu []string) *Row {
	return &Row{
		Doc: doc, Analysis: a, PDBID: meta.PDBID, Subset: subset,
		ReleaseDate: meta.ReleaseDate, Resolution: meta.Resolution, Method: meta.Method,
		EntityIDs: entities, ClusterIDs: clusters, ASUChainIDs: asu,
		ResolvedSeqSHA1: resolvedSeqSHA1(a.ResName),
	}
}

// Columns are exp222's document columns after the document itself
// (DOC_SCHEMA's other 34, in its order): contacts-v1's metadata row, then
// pdb_id, subset, release_date, resolution, method, entity_ids,
// cluster_ids, asu_chain_ids, resolved_seq_sha1. exp222's int32 columns
// are Int64 here, as every format's.
func Columns() []format.Column {
	cols := contactsv1.NewWithConfig(contactsv1.DefaultConfig()).Columns()
	return append(cols,
		format.Column{Name: "pdb_id", Type: format.String},
		format.Column{Name: "subset", Type: format.String},
		format.Column{Name: "release_date", Type: format.String},
		format.Column{Name: "resolution", Type: format.Float64, Nullable: true},
		format.Column{Name: "method", Type: format.String},
		format.Column{Name: "entity_ids", Type: format.StringList},
		format.Column{Name: "cluster_ids", Type: format.Int64List},
		format.Column{Name: "asu_chain_ids", Type: format.StringList},
		format.Column{Name: "resolved_seq_sha1", Type: format.String},
	)
}

// globalPLDDTColumn is global_plddt's place in Columns.
const globalPLDDTColumn = 2

// Values is the row aligned with Columns (nil for null).
func (r *Row) Values() []any {
	v := r.Doc.Values()
	v[globalPLDDTColumn] = 0.0
	var res any
	if r.Resolution != nil {
		res = *r.Resolution
	}
	return append(v, r.PDBID, r.Subset, r.ReleaseDate, res, r.Method,
		r.EntityIDs, r.ClusterIDs, r.ASUChainIDs, r.ResolvedSeqSHA1)
}
