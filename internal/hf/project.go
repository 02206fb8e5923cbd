package hf

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Columns says which top-level columns a projection keeps: Keep, when
// non-empty, lists them (each must exist); otherwise every column but those
// in Drop.
type Columns struct {
	Keep []string `json:"keep,omitempty"`
	Drop []string `json:"drop,omitempty"`
}

// DefaultColumns keeps every column but the inline mmCIF text.
var DefaultColumns = Columns{Drop: []string{"cif_content"}}

// ErrMissingColumn is wrapped when a file lacks a column to keep.
var ErrMissingColumn = errors.New("missing projected column")

// ErrNotParquet is wrapped when a file is not a parquet file.
var ErrNotParquet = errors.New("not a parquet file")

// Projected is the result of Project.
type Projected struct {
	Data      []byte   // the projected parquet file
	Columns   []string // the columns kept, in file order
	Rows      int64
	RowGroups int
}

// ReaderAtPrefetcher is a random-access source that can fetch given byte
// ranges ahead of the reads (File; tests use local files).
type ReaderAtPrefetcher interface {
	io.ReaderAt
	Size() int64
	Prefetch(ranges [][2]int64) error
	Drop()
}

// Project reads the footer of src and the column chunks of the kept columns,
// row group by row group (the chunks of one row group are fetched together,
// chunks that touch in one request), and returns a parquet file with the
// same rows in the same order and the same row groups, holding only the
// kept columns (zstd). name names the file in errors. meta is added to the
// output's key-value metadata. It never reads a byte of a column it drops.
func Project(ctx context.Context, src ReaderAtPrefetcher, name string, cols Columns, meta map[string]string) (_ *Projected, err error) {
	defer derrors.Wrap(&err, "%s", name)
	size := src.Size()
	if size < 12 {
		return nil, derrors.Permanent(fmt.Errorf("%w: %d bytes", ErrNotParquet, size))
	}
	// Two reads: the 8-byte trailer, then exactly the footer, so that no
	// byte of a dropped column is read even in a small file.
	if err := src.Prefetch([][2]int64{{size - 8, 8}}); err != nil {
		return nil, err
	}
	var end [8]byte
	if _, err := src.ReadAt(end[:], size-8); err != nil {
		return nil, err
	}
	if string(end[4:]) != "PAR1" {
		return nil, derrors.Permanent(fmt.Errorf("%w (no PAR1 magic at the end)", ErrNotParquet))
	}
	fl := int64(binary.LittleEndian.Uint32(end[:4]))
	if fl <= 0 || fl+12 > size {
		return nil, derrors.Permanent(fmt.Errorf("%w (footer length %d in a file of %d bytes)", ErrNotParquet, fl, size))
	}
	footer := make([]byte, fl)
	if err := src.Prefetch([][2]int64{{size - 8 - fl, fl}}); err != nil {
		return nil, err
	}
	if _, err := src.ReadAt(footer, size-8-fl); err != nil {
		return nil, err
	}
	md, err := metadata.NewFileMetaData(footer, nil)
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: footer: %w", ErrNotParquet, err))
	}
	md.SetSourceFileSize(size)
	pf, err := file.NewParquetReader(io.NewSectionReader(src, 0, size), file.WithMetadata(md))
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %w", ErrNotParquet, err))
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%w: %w", ErrNotParquet, err))
	}
	as, err := fr.Schema()
	if err != nil {
		return nil, derrors.Permanent(err)
	}
	keep, err := keptFields(as, cols)
	if err != nil {
		return nil, err
	}
	leaves, err := leafColumns(pf, keep)
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(keep))
	names := make([]string, len(keep))
	for i, fi := range keep {
		fields[i] = as.Field(fi)
		names[i] = fields[i].Name
	}
	outSchema := arrow.NewSchema(fields, nil)

	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(1<<40), parquet.WithCreatedBy("foldcorpus fetch-manifest"))
	fw, err := pqarrow.NewFileWriter(outSchema, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := fw.AppendKeyValueMetadata(k, meta[k]); err != nil {
			return nil, err
		}
	}
	out := &Projected{Columns: names, RowGroups: pf.NumRowGroups()}
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rgm := pf.MetaData().RowGroup(rg)
		ranges := make([][2]int64, 0, len(leaves))
		for _, leaf := range leaves {
			cc, err := rgm.ColumnChunk(leaf)
			if err != nil {
				return nil, derrors.Permanent(fmt.Errorf("row group %d column %d: %w", rg, leaf, err))
			}
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
				start = cc.DictionaryPageOffset()
			}
			ranges = append(ranges, [2]int64{start, cc.TotalCompressedSize()})
		}
		src.Drop()
		if err := src.Prefetch(ranges); err != nil {
			return nil, err
		}
		tbl, err := fr.ReadRowGroups(ctx, leaves, []int{rg})
		if err != nil {
			return nil, derrors.Permanent(fmt.Errorf("reading row group %d: %w", rg, err))
		}
		n := tbl.NumRows()
		err = fw.WriteTable(tbl, max(n, 1))
		tbl.Release()
		if err != nil {
			return nil, fmt.Errorf("writing row group %d: %w", rg, err)
		}
		out.Rows += n
	}
	src.Drop()
	if err := fw.Close(); err != nil {
		return nil, err
	}
	out.Data = buf.Bytes()
	return out, nil
}

// keptFields returns the indices of the top-level fields to keep.
func keptFields(as *arrow.Schema, cols Columns) ([]int, error) {
	var keep []int
	if len(cols.Keep) > 0 {
		for _, name := range cols.Keep {
			fi := as.FieldIndices(name)
			if len(fi) != 1 {
				have := make([]string, as.NumFields())
				for i := range have {
					have[i] = as.Field(i).Name
				}
				return nil, derrors.Permanent(fmt.Errorf("%w %q (the file has %s)", ErrMissingColumn, name, strings.Join(have, ", ")))
			}
			keep = append(keep, fi[0])
		}
		slices.Sort(keep)
		return slices.Compact(keep), nil
	}
	for i := 0; i < as.NumFields(); i++ {
		if !slices.Contains(cols.Drop, as.Field(i).Name) {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return nil, derrors.Permanent(errors.New("no column left to keep"))
	}
	return keep, nil
}

// leafColumns returns the parquet leaf columns of the given top-level
// fields, in file order.
func leafColumns(pf *file.Reader, fields []int) ([]int, error) {
	descr := pf.MetaData().Schema
	var leaves []int
	for leaf := 0; leaf < descr.NumColumns(); leaf++ {
		if slices.Contains(fields, descr.Root().FieldIndexByField(descr.ColumnRoot(leaf))) {
			leaves = append(leaves, leaf)
		}
	}
	if len(leaves) == 0 {
		return nil, derrors.Permanent(errors.New("the kept columns have no data"))
	}
	return leaves, nil
}
