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
	return describeQuery(ctx, db, "DESCRIBE SELECT * FROM read_parquet("+quote(file)+")")
}

func describeQuery(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, q)
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
//
// The common case (all files alike and right) costs two queries over the
// footers; only when they find a problem are the files described one by one
// (about 2 ms each) to name the file at fault.
func plan(ctx context.Context, db *sql.DB, files []string) (cols []column, casts map[string]string, err error) {
	if cols, casts, ok := planFast(ctx, db, files); ok {
		return cols, casts, nil
	}
	return planEach(ctx, db, files)
}

// planFast answers ok only when every column selection reads has one
// physical type across all files, is present in all of them or none, and
// the unified DuckDB types are of the right kinds.
func planFast(ctx context.Context, db *sql.DB, files []string) (cols []column, casts map[string]string, ok bool) {
	list := make([]string, len(files))
	for i, f := range files {
		list[i] = quote(f)
	}
	var names []string
	for _, c := range columns {
		names = append(names, quote(c.name))
	}
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT name, count(*), count(DISTINCT concat_ws('/', type, converted_type, logical_type))
FROM parquet_schema([%s]) WHERE name IN (%s) GROUP BY name`, strings.Join(list, ", "), strings.Join(names, ", ")))
	if err != nil {
		return nil, nil, false
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var name string
		var n, variants int
		if err := rows.Scan(&name, &n, &variants); err != nil || n != len(files) || variants != 1 {
			return nil, nil, false
		}
		seen[name] = true
	}
	if rows.Err() != nil {
		return nil, nil, false
	}
	var sel []string
	for _, c := range columns {
		if seen[c.name] {
			cols = append(cols, c)
			sel = append(sel, ident(c.name))
		} else if c.required {
			return nil, nil, false
		}
	}
	types, err := describeQuery(ctx, db, fmt.Sprintf("DESCRIBE SELECT %s FROM read_parquet([%s])", strings.Join(sel, ", "), strings.Join(list, ", ")))
	if err != nil {
		return nil, nil, false
	}
	casts = map[string]string{}
	for _, c := range cols {
		out, err := c.outputType(types[c.name])
		if err != nil {
			return nil, nil, false
		}
		casts[c.name] = out
	}
	return cols, casts, true
}

// planEach describes the files one by one.
func planEach(ctx context.Context, db *sql.DB, files []string) (cols []column, casts map[string]string, err error) {
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

// RequiredColumns names the manifest columns Select needs, in output
// order; OptionalColumns those it passes through when present.
func RequiredColumns() []string { return columnNames(true) }

// OptionalColumns: see RequiredColumns.
func OptionalColumns() []string { return columnNames(false) }

func columnNames(required bool) []string {
	var out []string
	for _, c := range columns {
		if c.required == required {
			out = append(out, c.name)
		}
	}
	return out
}
