// Package synthmanifest writes synthetic protein-structure manifests (parquet
// files shaped like the AFDB manifests: entry_id, gcs_uri, split, cluster ids,
// global_plddt, seq_len, ...) for tests and benchmarks of the selection stage.
//
// Everything it writes is a pure function of its arguments: the same Config
// (seed included) gives the same bytes. Files are written to a temporary name
// and renamed into place, so a reader never sees a partial file.
package synthmanifest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Column is one named column of a table to write. Values is one of
// []string, []*string (nil is a null), []int64, []*int64, []int32,
// []float64, []*float64 or []float32; every column of a table must have the
// same length.
type Column struct {
	Name   string
	Values any
}

// WriteTable writes cols as one parquet file at path (zstd, row groups of at
// most rowGroup rows; 0 means 65,536). It writes path+".tmp" first and renames
// it into place, so a retry simply rewrites the file and a crash never leaves
// a partial file under path. It is not safe to call twice concurrently for
// the same path.
func WriteTable(path string, cols []Column, rowGroup int) (err error) {
	defer derrors.Wrap(&err, "synthmanifest.WriteTable(%s)", path)
	if rowGroup <= 0 {
		rowGroup = 1 << 16
	}
	fields := make([]arrow.Field, len(cols))
	n := -1
	for i, c := range cols {
		dt, nullable, l, err := columnType(c.Values)
		if err != nil {
			return fmt.Errorf("column %s: %w", c.Name, err)
		}
		if n >= 0 && l != n {
			return fmt.Errorf("column %s has %d values, want %d", c.Name, l, n)
		}
		n = l
		fields[i] = arrow.Field{Name: c.Name, Type: dt, Nullable: nullable}
	}
	schema := arrow.NewSchema(fields, nil)

	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(int64(rowGroup)),
		parquet.WithCreatedBy("foldcorpus synthmanifest"),
	)
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for lo := 0; lo < n || (n == 0 && lo == 0); lo += rowGroup {
		hi := min(lo+rowGroup, n)
		for i, c := range cols {
			appendRange(b.Field(i), c.Values, lo, hi)
		}
		rec := b.NewRecordBatch()
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	if err = w.Close(); err != nil { // closes f too
		return err
	}
	return os.Rename(tmp, path)
}

func columnType(v any) (arrow.DataType, bool, int, error) {
	switch v := v.(type) {
	case []string:
		return arrow.BinaryTypes.String, false, len(v), nil
	case []*string:
		return arrow.BinaryTypes.String, true, len(v), nil
	case []int64:
		return arrow.PrimitiveTypes.Int64, false, len(v), nil
	case []*int64:
		return arrow.PrimitiveTypes.Int64, true, len(v), nil
	case []int32:
		return arrow.PrimitiveTypes.Int32, false, len(v), nil
	case []float64:
		return arrow.PrimitiveTypes.Float64, false, len(v), nil
	case []*float64:
		return arrow.PrimitiveTypes.Float64, true, len(v), nil
	case []float32:
		return arrow.PrimitiveTypes.Float32, false, len(v), nil
	}
	return nil, false, 0, fmt.Errorf("unsupported values type %T", v)
}

func appendRange(b array.Builder, v any, lo, hi int) {
	switch v := v.(type) {
	case []string:
		b.(*array.StringBuilder).AppendValues(v[lo:hi], nil)
	case []*string:
		appendPtrs(b.(*array.StringBuilder), v[lo:hi])
	case []int64:
		b.(*array.Int64Builder).AppendValues(v[lo:hi], nil)
	case []*int64:
		appendPtrs(b.(*array.Int64Builder), v[lo:hi])
	case []int32:
		b.(*array.Int32Builder).AppendValues(v[lo:hi], nil)
	case []float64:
		b.(*array.Float64Builder).AppendValues(v[lo:hi], nil)
	case []*float64:
		appendPtrs(b.(*array.Float64Builder), v[lo:hi])
	case []float32:
		b.(*array.Float32Builder).AppendValues(v[lo:hi], nil)
	}
}

// appendPtrs appends each of vs to b, nil as null.
func appendPtrs[T any](b interface {
	Append(T)
	AppendNull()
}, vs []*T) {
	for _, v := range vs {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(*v)
		}
	}
}

// ensureDir creates dir and its parents when missing.
func ensureDir(dir string) error {
	return os.MkdirAll(filepath.Clean(dir), 0o755)
}
