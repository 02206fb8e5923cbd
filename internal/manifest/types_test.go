package manifest_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// writeUnsigned writes a manifest whose tax_id is uint64 (as pandas writes
// numpy uint64), with uint8/16/32 columns beside it, and a struct column.
func writeUnsigned(t *testing.T, taxIDs []uint64) string {
	t.Helper()
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "entry_id", Type: arrow.BinaryTypes.String},
		{Name: "gcs_uri", Type: arrow.BinaryTypes.String},
		{Name: "tax_id", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "u8", Type: arrow.PrimitiveTypes.Uint8},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "nested", Type: st},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i, v := range taxIDs {
		b.Field(0).(*array.StringBuilder).Append(string(rune('A' + i)))
		b.Field(1).(*array.StringBuilder).Append("gs://b/x.cif")
		b.Field(2).(*array.Uint64Builder).Append(v)
		b.Field(3).(*array.Uint8Builder).Append(255)
		b.Field(4).(*array.Uint16Builder).Append(65535)
		b.Field(5).(*array.Uint32Builder).Append(math.MaxUint32)
		sb := b.Field(6).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(1)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "m.parquet")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnsignedColumns: unsigned integer columns are int64 columns (widened;
// a uint64 value over int64's range is an error naming the file, column
// and row), so tax_id is in the default passthrough set; type errors say
// the types' names.
func TestUnsignedColumns(t *testing.T) {
	ctx := context.Background()
	p := writeUnsigned(t, []uint64{9606, 10090})
	s, err := manifest.ReadSchema(ctx, localblob.Store{}, p)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := manifest.Resolve(s, "", "", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cols := strings.Join(proj.Columns(), ","); cols != "entry_id,gcs_uri,tax_id" {
		t.Errorf("default projection %s, want entry_id,gcs_uri,tax_id", cols)
	}
	var got []any
	read := func(p string) error {
		got = nil
		return manifest.ReadFile(ctx, localblob.Store{}, p, nil, []string{"tax_id", "u8", "u16", "u32"}, func(r *manifest.Rows) error {
			for _, v := range r.Values {
				got = append(got, v...)
			}
			return nil
		})
	}
	if err := read(p); err != nil {
		t.Fatal(err)
	}
	want := []any{int64(9606), int64(255), int64(65535), int64(math.MaxUint32), int64(10090), int64(255), int64(65535), int64(math.MaxUint32)}
	if len(got) != len(want) {
		t.Fatalf("read %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("value %d = %#v, want %#v", i, got[i], want[i])
		}
	}
	big := writeUnsigned(t, []uint64{1, math.MaxInt64 + 1})
	err = read(big)
	if msg := derrors.Describe(err); err == nil || !strings.Contains(msg, big) || !strings.Contains(msg, `column "tax_id"`) || !strings.Contains(msg, "row 1") || !strings.Contains(msg, "9223372036854775808") {
		t.Errorf("reading a uint64 over int64's range: %q, want an error naming the file, the column, row 1 and the value", msg)
	}

	for _, tc := range []struct {
		record      []format.Column
		passthrough []string
		want        []string
	}{
		{record: []format.Column{{Name: "tax_id", Type: format.String}}, want: []string{`column "tax_id" has type int64`, "want string"}},
		{record: []format.Column{{Name: "gcs_uri", Type: format.Int64}}, want: []string{`column "gcs_uri" has type string`, "want int64"}},
		{passthrough: []string{"nested"}, want: []string{`column "nested" has an unsupported type struct<x: int32>`}},
	} {
		_, err := manifest.Resolve(s, "", "", tc.record, nil, tc.passthrough)
		msg := derrors.Describe(err)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("Resolve(record %v, passthrough %v) = %q, want it to say %q", tc.record, tc.passthrough, msg, w)
			}
		}
	}
}
