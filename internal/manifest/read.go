package manifest

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Rows is a batch of projected manifest rows: Values[i][j] is row i's value
// of Columns[j], as string, int64, float64, bool, []int64, []float64,
// []string or nil (null).
type Rows struct {
	Columns []string
	Values  [][]any
	// First is the row number (within the file) of Values[0].
	First int64
	// Total is the number of rows of all the row groups the read covers
	// (from the footer), known from the first batch on.
	Total int64
}

// Index returns the position of a column in Columns, or -1.
func (r *Rows) Index(name string) int { return slices.Index(r.Columns, name) }

// ReadFile reads the named columns of the given row groups of the parquet
// file at uri (all row groups when rowGroups is empty), one row group at a
// time, calling fn with each batch in file order: Open, then
// File.ReadShard (the shard worker's read of its own row groups from the
// file it has open).
// Only the projected column chunks are read. Idempotent; a missing column or
// unreadable file is a permanent error naming the file; an error from fn
// stops the read and is returned.
func ReadFile(ctx context.Context, store blob.Store, uri string, rowGroups []int, columns []string, fn func(*Rows) error) (err error) {
	defer derrors.Wrap(&err, "manifest.ReadFile(%s)", uri)
	f, err := Open(ctx, store, uri)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.readShard(ctx, rowGroups, columns, fn)
}

// tableRows converts tbl, whose first row is row first of the file; an
// error names the column and the file's row.
func tableRows(tbl arrow.Table, columns []string, first int64) (*Rows, error) {
	n := int(tbl.NumRows())
	rows := &Rows{Columns: columns, Values: make([][]any, n)}
	for i := range rows.Values {
		rows.Values[i] = make([]any, len(columns))
	}
	sc := tbl.Schema()
	for j, name := range columns {
		idx := sc.FieldIndices(name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("column %q not in the projected table", name)
		}
		row := 0
		for _, chunk := range tbl.Column(idx[0]).Data().Chunks() {
			for k := 0; k < chunk.Len(); k++ {
				v, err := value(chunk, k)
				if err != nil {
					return nil, fmt.Errorf("column %q row %d: %w", name, first+int64(row), err)
				}
				rows.Values[row][j] = v
				row++
			}
		}
	}
	return rows, nil
}

// value converts element k of arr to a plain Go value.
func value(arr arrow.Array, k int) (any, error) {
	if arr.IsNull(k) {
		return nil, nil
	}
	switch a := arr.(type) {
	case *array.String:
		return a.Value(k), nil
	case *array.LargeString:
		return a.Value(k), nil
	case *array.Binary:
		return string(a.Value(k)), nil
	case *array.LargeBinary:
		return string(a.Value(k)), nil
	case *array.Int8:
		return int64(a.Value(k)), nil
	case *array.Int16:
		return int64(a.Value(k)), nil
	case *array.Int32:
		return int64(a.Value(k)), nil
	case *array.Int64:
		return a.Value(k), nil
	case *array.Uint8:
		return int64(a.Value(k)), nil
	case *array.Uint16:
		return int64(a.Value(k)), nil
	case *array.Uint32:
		return int64(a.Value(k)), nil
	case *array.Uint64:
		v := a.Value(k)
		if v > math.MaxInt64 {
			return nil, fmt.Errorf("uint64 value %d does not fit the int64 the pipeline carries", v)
		}
		return int64(v), nil
	case *array.Float32:
		return float64(a.Value(k)), nil
	case *array.Float64:
		return a.Value(k), nil
	case *array.Boolean:
		return a.Value(k), nil
	case array.ListLike:
		start, end := a.ValueOffsets(k)
		vals := a.ListValues()
		var ints []int64
		var floats []float64
		var strs []string
		for i := int(start); i < int(end); i++ {
			v, err := value(vals, i)
			if err != nil {
				return nil, err
			}
			switch x := v.(type) {
			case int64:
				ints = append(ints, x)
			case float64:
				floats = append(floats, x)
			case string:
				strs = append(strs, x)
			case nil:
				return nil, fmt.Errorf("null list element")
			}
		}
		switch {
		case ints != nil:
			return ints, nil
		case floats != nil:
			return floats, nil
		case strs != nil:
			return strs, nil
		}
		return emptyList(vals.DataType()), nil
	}
	return nil, fmt.Errorf("unsupported type %s", arr.DataType())
}

func emptyList(t arrow.DataType) any {
	switch ct, _ := columnType(t); ct {
	case format.Int64:
		return []int64{}
	case format.Float64:
		return []float64{}
	}
	return []string{}
}
