package selection

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// kind is the family of DuckDB types a manifest column may have.
type kind int

const (
	kindString  kind = iota // VARCHAR
	kindInteger             // any integer type
	kindNumber              // integer, float, double or decimal
	kindKey                 // VARCHAR or integer: cluster ids
	kindAny                 // passed through as read
)

func (k kind) String() string {
	return [...]string{"a string", "an integer", "a number", "a string or an integer", "any type"}[k]
}

// column is one column selection reads: its name, the type family it must
// have, whether it is required, and what it is cast to in the output.
type column struct {
	name     string
	kind     kind
	required bool
}

// columns are the small manifest columns selection reads, in output order.
// cif_content is never among them.
var columns = []column{
	{"entry_id", kindString, true},
	{"gcs_uri", kindString, true},
	{"split", kindString, true},
	{"seq_cluster_id", kindKey, false},
	{"struct_cluster_id", kindKey, true},
	{"uniprot_accession", kindString, false},
	{"tax_id", kindInteger, false},
	{"organism_name", kindString, false},
	{"global_plddt", kindNumber, true},
	{"seq_len", kindInteger, true},
}

func kindOf(duckType string) (string, []kind) {
	t := strings.ToUpper(duckType)
	switch {
	case t == "VARCHAR":
		return "VARCHAR", []kind{kindString, kindKey, kindAny}
	case t == "TINYINT" || t == "SMALLINT" || t == "INTEGER" || t == "BIGINT" || t == "HUGEINT" ||
		t == "UTINYINT" || t == "USMALLINT" || t == "UINTEGER" || t == "UBIGINT":
		return "BIGINT", []kind{kindInteger, kindNumber, kindKey, kindAny}
	case t == "FLOAT" || t == "DOUBLE" || strings.HasPrefix(t, "DECIMAL"):
		return "DOUBLE", []kind{kindNumber, kindAny}
	}
	return t, []kind{kindAny}
}

// outputType returns the DuckDB type a column is written as (VARCHAR, BIGINT
// or DOUBLE: the plain types every parquet reader maps the same way) or an
// error when the type is not of the column's kind.
func (c column) outputType(duckType string) (string, error) {
	out, kinds := kindOf(duckType)
	for _, k := range kinds {
		if k == c.kind {
			if c.name == "global_plddt" {
				return "DOUBLE", nil
			}
			return out, nil
		}
	}
	return "", fmt.Errorf("column %s has type %s, want %s", c.name, duckType, c.kind)
}

// describe returns column name -> DuckDB type of one parquet file.
func describe(ctx context.Context, db *sql.DB, file string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, "DESCRIBE SELECT * FROM read_parquet("+quote(file)+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types := map[string]string{}
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		types[fmt.Sprint(vals[0])] = fmt.Sprint(vals[1])
	}
	return types, rows.Err()
}

// plan checks every input file's schema and returns the columns to read
// (present in all files) with the type each is cast to. A missing required
// column, a column of the wrong type, or an optional column present in some
// files but not others is a permanent error naming the file.
func plan(ctx context.Context, db *sql.DB, files []string) (cols []column, casts map[string]string, err error) {
	casts = map[string]string{}
	var first map[string]string
	for i, f := range files {
		types, err := describe(ctx, db, f)
		if err != nil {
			return nil, nil, derrors.Permanent(fmt.Errorf("reading the schema of %s: %w", f, err))
		}
		if i == 0 {
			first = types
		}
		for _, c := range columns {
			t, ok := types[c.name]
			_, inFirst := first[c.name]
			switch {
			case !ok && c.required:
				return nil, nil, derrors.Permanent(fmt.Errorf("%s: missing required column %s (need %s)", f, c.name, requiredNames()))
			case ok && !inFirst:
				return nil, nil, derrors.Permanent(fmt.Errorf("%s: optional column %s is present here but missing in %s; all files must have the same columns", f, c.name, files[0]))
			case !ok && inFirst:
				return nil, nil, derrors.Permanent(fmt.Errorf("%s: optional column %s is missing here but present in %s; all files must have the same columns", f, c.name, files[0]))
			case !ok:
				continue
			}
			out, err := c.outputType(t)
			if err != nil {
				return nil, nil, derrors.Permanent(fmt.Errorf("%s: %w", f, err))
			}
			if prev, seen := casts[c.name]; seen && prev != out {
				return nil, nil, derrors.Permanent(fmt.Errorf("%s: column %s has type %s here but %s in %s", f, c.name, t, first[c.name], files[0]))
			}
			casts[c.name] = out
		}
	}
	for _, c := range columns {
		if _, ok := casts[c.name]; ok {
			cols = append(cols, c)
		}
	}
	return cols, casts, nil
}

func requiredNames() string {
	var n []string
	for _, c := range columns {
		if c.required {
			n = append(n, c.name)
		}
	}
	return strings.Join(n, ", ")
}

// quote returns s as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ident returns s as a SQL identifier.
func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
