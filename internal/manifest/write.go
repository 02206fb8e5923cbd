package manifest

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Encode writes rows (values aligned with cols, nil for null) as a zstd
// parquet file with rowGroupRows rows per row group (all in one when 0), and
// returns its bytes. Same input, same bytes. Used to build manifests for
// samples, tests and benchmarks.
func Encode(cols []format.Column, rows [][]any, rowGroupRows int) ([]byte, error) {
	if rowGroupRows <= 0 {
		rowGroupRows = max(1, len(rows))
	}
	var groups [][][]any
	for lo := 0; lo < len(rows) || lo == 0; lo += rowGroupRows {
		groups = append(groups, rows[lo:min(len(rows), lo+rowGroupRows)])
		if len(rows) == 0 {
			break
		}
	}
	return EncodeGroups(cols, groups)
}

// EncodeGroups is Encode with the row groups given: one per element of
// groups, in order (an empty file has one empty group).
func EncodeGroups(cols []format.Column, groups [][][]any) ([]byte, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: ArrowType(c.Type), Nullable: c.Nullable}
	}
	as := arrow.NewSchema(fields, nil)
	largest := 1
	for _, g := range groups {
		largest = max(largest, len(g))
	}
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCreatedBy("foldcorpus"), parquet.WithMaxRowGroupLength(int64(largest)))
	fw, err := pqarrow.NewFileWriter(as, &buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		return nil, err
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer rb.Release()
	for _, group := range groups {
		for _, row := range group {
			if len(row) != len(cols) {
				return nil, fmt.Errorf("manifest.Encode: row has %d values for %d columns", len(row), len(cols))
			}
			for i, v := range row {
				if err := AppendValue(rb.Field(i), v); err != nil {
					return nil, fmt.Errorf("manifest.Encode: column %q: %w", cols[i].Name, err)
				}
			}
		}
		rec := rb.NewRecordBatch()
		err := fw.Write(rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
	if err := fw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ArrowType is the arrow type that carries a column type.
func ArrowType(t format.ColumnType) arrow.DataType {
	switch t {
	case format.Int64:
		return arrow.PrimitiveTypes.Int64
	case format.Float64:
		return arrow.PrimitiveTypes.Float64
	case format.Bool:
		return arrow.FixedWidthTypes.Boolean
	case format.Int64List:
		return arrow.ListOf(arrow.PrimitiveTypes.Int64)
	case format.Float64List:
		return arrow.ListOf(arrow.PrimitiveTypes.Float64)
	case format.StringList:
		return arrow.ListOf(arrow.BinaryTypes.String)
	}
	return arrow.BinaryTypes.String
}

// AppendValue appends v (nil for null) to b, checking its Go type.
func AppendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.StringBuilder:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want string, got %T", v)
		}
		b.Append(s)
	case *array.Int64Builder:
		switch x := v.(type) {
		case int64:
			b.Append(x)
		case int:
			b.Append(int64(x))
		case int32:
			b.Append(int64(x))
		default:
			return fmt.Errorf("want int64, got %T", v)
		}
	case *array.Float64Builder:
		switch x := v.(type) {
		case float64:
			b.Append(x)
		case float32:
			b.Append(float64(x))
		default:
			return fmt.Errorf("want float64, got %T", v)
		}
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want bool, got %T", v)
		}
		b.Append(x)
	case *array.ListBuilder:
		b.Append(true)
		switch x := v.(type) {
		case []int64:
			return appendList(b.ValueBuilder(), x)
		case []int:
			return appendList(b.ValueBuilder(), x)
		case []float64:
			return appendList(b.ValueBuilder(), x)
		case []string:
			return appendList(b.ValueBuilder(), x)
		default:
			return fmt.Errorf("want a list, got %T", v)
		}
	default:
		return fmt.Errorf("unsupported builder %T", b)
	}
	return nil
}

// appendList appends each element of xs to b (a list's value builder) with
// AppendValue, stopping at the first error.
func appendList[T any](b array.Builder, xs []T) error {
	for _, e := range xs {
		if err := AppendValue(b, e); err != nil {
			return err
		}
	}
	return nil
}
