package manifest

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// File is one manifest file opened for reading: its footer is read once, by
// Open, and both its schema and its row groups come from that one reading.
// A File is used by one goroutine at a time.
type File struct {
	uri    string
	obj    *aheadObject
	fr     *pqarrow.FileReader
	schema Schema
}

// Open opens the manifest at uri and reads its footer, with range reads
// only: one Store.Open and the footer's ReadAt calls. Idempotent. A missing
// object wraps derrors.ErrNotFound; an unreadable parquet file is permanent.
// The caller closes the File.
func Open(ctx context.Context, store blob.Store, uri string) (_ *File, err error) {
	defer derrors.Wrap(&err, "manifest.Open(%s)", uri)
	o, err := store.Open(ctx, uri)
	if err != nil {
		return nil, err
	}
	obj := &aheadObject{Object: o}
	key, keep := footerKeyOf(uri, o)
	fr, err := openReader(uri, obj, key, keep)
	if err == nil {
		var s Schema
		if s, err = schemaOf(uri, obj, fr); err == nil {
			return &File{uri: uri, obj: obj, fr: fr, schema: s}, nil
		}
	}
	obj.Close()
	return nil, err
}

// Schema is what the file's footer says (read by Open; no I/O).
func (f *File) Schema() Schema { return f.schema }

// Close closes the underlying object.
func (f *File) Close() error { return f.obj.Close() }

// ReadShard is ReadFile over the open file: the named
// columns of the given row groups (all when rowGroups is empty), one row
// group at a time, fn called with each batch in file order. It reads only
// the projected column chunks, never the footer again. Idempotent; a
// missing column is a permanent error naming the file; an error from fn
// stops the read and is returned.
func (f *File) ReadShard(ctx context.Context, rowGroups []int, columns []string, fn func(*Rows) error) (err error) {
	defer derrors.Wrap(&err, "manifest.ReadFile(%s)", f.uri)
	return f.readShard(ctx, rowGroups, columns, fn)
}

func (f *File) readShard(ctx context.Context, rowGroups []int, columns []string, fn func(*Rows) error) error {
	fr := f.fr
	pf := fr.ParquetReader()
	as, err := fr.Schema()
	if err != nil {
		return derrors.Permanent(err)
	}
	// Leaf column indices of the wanted top-level fields, in the requested order.
	var leaves []int
	descr := pf.MetaData().Schema
	for _, name := range columns {
		fi := as.FieldIndices(name)
		if len(fi) != 1 {
			return derrors.Permanent(fmt.Errorf("%w %q", ErrMissingColumn, name))
		}
		found := false
		for leaf := 0; leaf < descr.NumColumns(); leaf++ {
			if descr.Root().FieldIndexByField(descr.ColumnRoot(leaf)) == fi[0] {
				leaves = append(leaves, leaf)
				found = true
			}
		}
		if !found {
			return derrors.Permanent(fmt.Errorf("column %q has no data", name))
		}
	}
	if len(rowGroups) == 0 {
		for i := 0; i < pf.NumRowGroups(); i++ {
			rowGroups = append(rowGroups, i)
		}
	}
	var first int64
	starts := make([]int64, pf.NumRowGroups())
	for i := range starts {
		starts[i] = first
		first += pf.MetaData().RowGroup(i).NumRows()
	}
	var total int64
	for _, rg := range rowGroups {
		if rg < 0 || rg >= pf.NumRowGroups() {
			return derrors.Permanent(fmt.Errorf("row group %d out of range (file has %d)", rg, pf.NumRowGroups()))
		}
		total += pf.MetaData().RowGroup(rg).NumRows()
	}
	// Chunks are fetched a batch ahead of their decoding (readahead.go);
	// every batch fetched is dropped before the read returns.
	batches := aheadPlan(pf, rowGroups, leaves)
	dropped, fetched := 0, 0
	defer func() {
		for _, b := range batches[dropped:fetched] {
			f.obj.drop(b.spans)
		}
	}()
	for i, rg := range rowGroups {
		if err := ctx.Err(); err != nil {
			return err
		}
		for ; dropped < fetched && batches[dropped].end <= i; dropped++ {
			f.obj.drop(batches[dropped].spans)
		}
		for ; fetched < len(batches) && fetched <= dropped+1; fetched++ {
			f.obj.fetch(batches[fetched].spans)
		}
		tbl, err := fr.ReadRowGroups(ctx, leaves, []int{rg})
		if err != nil {
			return derrors.Permanent(fmt.Errorf("row group %d: %w", rg, err))
		}
		rows, err := tableRows(tbl, columns, starts[rg])
		tbl.Release()
		if err != nil {
			return derrors.Permanent(fmt.Errorf("manifest %s: row group %d: %w", f.uri, rg, err))
		}
		rows.First, rows.Total = starts[rg], total
		if err := fn(rows); err != nil {
			return err
		}
	}
	return nil
}
