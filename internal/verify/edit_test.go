package verify_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// readTable reads a whole parquet file and its key-value metadata.
func readTable(t *testing.T, data []byte) (arrow.Table, map[string]string) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	kv := map[string]string{}
	for _, e := range pf.MetaData().KeyValueMetadata() {
		if e.Key != "ARROW:schema" {
			kv[e.Key] = *e.Value
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl, kv
}

// editColumn rewrites a shard file with row k's string column col changed
// by fn, keeping every other value and the footer's key-value metadata (the
// accounting): a file whose footer still says all is well.
func editColumn(t *testing.T, data []byte, col string, k int, fn func(string) string) []byte {
	t.Helper()
	tbl, kv := readTable(t, data)
	defer tbl.Release()
	idx := tbl.Schema().FieldIndices(col)
	if len(idx) != 1 {
		t.Fatalf("no column %q", col)
	}
	cols := make([]arrow.Array, tbl.NumCols())
	for c := range cols {
		chunks := tbl.Column(c).Data().Chunks()
		arr, err := array.Concatenate(chunks, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		cols[c] = arr
	}
	old := cols[idx[0]].(*array.String)
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	for r := 0; r < old.Len(); r++ {
		v := old.Value(r)
		if r == k {
			v = fn(v)
		}
		if old.IsNull(r) {
			bld.AppendNull()
		} else {
			bld.Append(v)
		}
	}
	cols[idx[0]] = bld.NewArray()
	rec := array.NewRecordBatch(tbl.Schema(), cols, int64(old.Len()))
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(128))
	fw, err := pqarrow.NewFileWriter(tbl.Schema(), &buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	for key, v := range kv {
		if err := fw.AppendKeyValueMetadata(key, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// firstID returns a shard file's first entry id.
func firstID(t *testing.T, data []byte) string {
	t.Helper()
	tbl, _ := readTable(t, data)
	defer tbl.Release()
	arr := tbl.Column(tbl.Schema().FieldIndices("entry_id")[0]).Data().Chunk(0).(*array.String)
	return arr.Value(0)
}
