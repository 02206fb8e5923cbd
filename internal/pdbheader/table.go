package pdbheader

import (
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Columns is the entries table's schema: exp222's 15 columns in its order
// (its int32 columns are int64 here; DuckDB and pyarrow read both alike).
func Columns() []format.Column {
	return []format.Column{
		{Name: "pdb_id", Type: format.String},
		{Name: "path", Type: format.String},
		{Name: "release_date", Type: format.String, Nullable: true},
		{Name: "deposition_date", Type: format.String, Nullable: true},
		{Name: "method", Type: format.String, Nullable: true},
		{Name: "resolution", Type: format.Float64, Nullable: true},
		{Name: "resolution_source", Type: format.String, Nullable: true},
		{Name: "n_protein_entities", Type: format.Int64},
		{Name: "n_protein_asym_chains", Type: format.Int64},
		{Name: "protein_entity_ids", Type: format.StringList},
		{Name: "protein_entity_lengths", Type: format.Int64List},
		{Name: "protein_strand_ids", Type: format.StringList},
		{Name: "n_assembly1_protein_asyms", Type: format.Int64},
		{Name: "n_assembly1_protein_chains", Type: format.Int64},
		{Name: "error", Type: format.String, Nullable: true},
	}
}

// Row is the entry's values in Columns' order, nil for null.
func (e Entry) Row() []any {
	return []any{e.PDBID, e.Path, strOrNil(e.ReleaseDate), strOrNil(e.DepositionDate), strOrNil(e.Method),
		floatOrNil(e.Resolution), strOrNil(e.ResolutionSource), e.NProteinEntities, e.NProteinAsymChains,
		e.ProteinEntityIDs, e.ProteinEntityLengths, e.ProteinStrandIDs,
		e.NAssembly1ProteinAsyms, e.NAssembly1ProteinChains, strOrNil(e.Error)}
}

// FromRow is the inverse of Row for values read back by manifest.ReadShard
// (columns named by cols, in any order; every column of Columns required).
// Errors name the column.
func FromRow(cols []string, vals []any) (Entry, error) {
	var e Entry
	seen := 0
	for i, c := range cols {
		v := vals[i]
		var err error
		switch c {
		case "pdb_id":
			err = str(v, &e.PDBID)
		case "path":
			err = str(v, &e.Path)
		case "release_date":
			e.ReleaseDate, err = optStr(v)
		case "deposition_date":
			e.DepositionDate, err = optStr(v)
		case "method":
			e.Method, err = optStr(v)
		case "resolution":
			if v != nil {
				f, ok := v.(float64)
				if !ok {
					err = fmt.Errorf("want a float, got %T", v)
				}
				e.Resolution = &f
			}
		case "resolution_source":
			e.ResolutionSource, err = optStr(v)
		case "n_protein_entities":
			err = integer(v, &e.NProteinEntities)
		case "n_protein_asym_chains":
			err = integer(v, &e.NProteinAsymChains)
		case "protein_entity_ids":
			err = list(v, &e.ProteinEntityIDs)
		case "protein_entity_lengths":
			err = list(v, &e.ProteinEntityLengths)
		case "protein_strand_ids":
			err = list(v, &e.ProteinStrandIDs)
		case "n_assembly1_protein_asyms":
			err = integer(v, &e.NAssembly1ProteinAsyms)
		case "n_assembly1_protein_chains":
			err = integer(v, &e.NAssembly1ProteinChains)
		case "error":
			e.Error, err = optStr(v)
		default:
			continue
		}
		if err != nil {
			return Entry{}, fmt.Errorf("column %s: %w", c, err)
		}
		seen++
	}
	if seen != len(Columns()) {
		return Entry{}, fmt.Errorf("%d of the %d entries-table columns present", seen, len(Columns()))
	}
	return e, nil
}

func strOrNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func floatOrNil(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func str(v any, dst *string) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("want a string, got %T", v)
	}
	*dst = s
	return nil
}

func optStr(v any) (*string, error) {
	if v == nil {
		return nil, nil
	}
	var s string
	if err := str(v, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func integer(v any, dst *int64) error {
	n, ok := v.(int64)
	if !ok {
		return fmt.Errorf("want an integer, got %T", v)
	}
	*dst = n
	return nil
}

func list[T any](v any, dst *[]T) error {
	if v == nil {
		*dst = []T{}
		return nil
	}
	xs, ok := v.([]T)
	if !ok {
		return fmt.Errorf("want a list of %T, got %T", *new(T), v)
	}
	*dst = xs
	return nil
}
