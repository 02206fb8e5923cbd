// Package manifest reads manifest parquet files: the schema from the footer
// alone (range reads through blob.Object), the resolution of required and
// passthrough columns into one projection, and projected reads of one shard
// (a file or some of its row groups).
//
// Everything here is read-only and safe for concurrent use; errors name the
// manifest URI and are permanent (a bad manifest does not heal on retry)
// unless the blob store classified them as transient.
package manifest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
)

// Column names the pipeline knows.
const (
	EntryIDColumn    = "entry_id"
	DefaultURIColumn = "gcs_uri"
	// InlineTextColumn is the usual inline mmCIF column (--cif-text-column).
	InlineTextColumn = "cif_content"
)

// PassthroughColumns are copied from the manifest to the output when present,
// in this order: the default set (a run may name its own, see Resolve).
var PassthroughColumns = []string{
	"split", "seq_cluster_id", "struct_cluster_id", "uniprot_accession",
	"tax_id", "organism_name", "global_plddt", "seq_len", "round",
}

// Schema is what the footer of one manifest file says.
type Schema struct {
	URI       string
	Size      int64           // object size in bytes
	BytesRead int64           // bytes read to get this schema (the footer)
	NumRows   int64           // rows in the file
	RowGroups []int64         // rows per row group
	Columns   []format.Column // top-level columns with a supported type
	// Unsupported lists top-level columns whose type the pipeline cannot
	// project (nested structs, maps...); naming one is an error.
	Unsupported []string
	// UnsupportedTypes is the arrow type of each Unsupported column.
	UnsupportedTypes []string
}

// Column returns the named column and whether it exists with a supported type.
func (s Schema) Column(name string) (format.Column, bool) {
	for _, c := range s.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return format.Column{}, false
}

// ReadSchema reads the schema of the manifest at uri from its footer, with
// range reads only (Open, then File.Schema). Idempotent. A missing object
// wraps derrors.ErrNotFound; an unreadable parquet file is permanent.
func ReadSchema(ctx context.Context, store blob.Store, uri string) (_ Schema, err error) {
	defer derrors.Wrap(&err, "manifest.ReadSchema(%s)", uri)
	f, err := Open(ctx, store, uri)
	if err != nil {
		return Schema{}, err
	}
	defer f.Close()
	return f.Schema(), nil
}

// schemaOf is the Schema that the footer of obj, read into fr, says.
func schemaOf(uri string, obj blob.Object, fr *pqarrow.FileReader) (Schema, error) {
	as, err := fr.Schema()
	if err != nil {
		return Schema{}, derrors.Permanent(fmt.Errorf("manifest %s: not a readable parquet schema: %w", uri, err))
	}
	s := Schema{URI: uri, Size: obj.Size(), NumRows: fr.ParquetReader().NumRows()}
	for i := 0; i < fr.ParquetReader().NumRowGroups(); i++ {
		s.RowGroups = append(s.RowGroups, fr.ParquetReader().MetaData().RowGroup(i).NumRows())
	}
	for _, f := range as.Fields() {
		t, ok := columnType(f.Type)
		if !ok {
			s.Unsupported = append(s.Unsupported, f.Name)
			s.UnsupportedTypes = append(s.UnsupportedTypes, f.Type.String())
			continue
		}
		s.Columns = append(s.Columns, format.Column{Name: f.Name, Type: t, Nullable: f.Nullable})
	}
	s.BytesRead = obj.BytesRead()
	return s, nil
}

// openReader opens the parquet reader of obj, whose footer is kept under
// key when keep (footers): parsed once per process.
func openReader(uri string, obj blob.Object, key footerKey, keep bool) (*pqarrow.FileReader, error) {
	src := io.NewSectionReader(obj, 0, obj.Size())
	var opts []file.ReadOption
	if keep {
		md, err := footers.get(key, func() (*metadata.FileMetaData, error) {
			pf, err := file.NewParquetReader(src)
			if err != nil {
				return nil, err
			}
			return pf.MetaData(), nil
		})
		if err != nil {
			return nil, notParquet(uri, obj, err)
		}
		opts = append(opts, file.WithMetadata(md))
	}
	pf, err := file.NewParquetReader(src, opts...)
	if err != nil {
		return nil, notParquet(uri, obj, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		return nil, notParquet(uri, obj, err)
	}
	return fr, nil
}

// columnType maps an arrow type to the column types the pipeline carries.
// Unsigned integers are widened to int64; a uint64 value over int64's
// range is an error when it is read (value).
func columnType(t arrow.DataType) (format.ColumnType, bool) {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return format.String, true
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return format.Int64, true
	case arrow.FLOAT32, arrow.FLOAT64:
		return format.Float64, true
	case arrow.BOOL:
		return format.Bool, true
	case arrow.LIST, arrow.LARGE_LIST:
		et, ok := columnType(t.(arrow.ListLikeType).Elem())
		if !ok {
			return 0, false
		}
		switch et {
		case format.Int64:
			return format.Int64List, true
		case format.Float64:
			return format.Float64List, true
		case format.String:
			return format.StringList, true
		}
	}
	return 0, false
}

// Projection is the fixed list of manifest columns every shard reads.
type Projection struct {
	// URIColumn names the column of per-row object URIs; empty in inline mode.
	URIColumn string
	// TextColumn names the inline mmCIF text column; empty in URI mode.
	TextColumn string
	// Record lists the columns a FromRecord format consumes.
	Record []format.Column
	// Passthrough lists the optional columns present in the manifest, copied
	// to the output.
	Passthrough []format.Column
}

// Columns returns the projected column names: entry_id, the URI or text
// column, the record columns, then the passthrough columns, without
// duplicates.
func (p Projection) Columns() []string {
	cols := []string{EntryIDColumn}
	add := func(n string) {
		if n != "" && !slices.Contains(cols, n) {
			cols = append(cols, n)
		}
	}
	add(p.URIColumn)
	add(p.TextColumn)
	for _, c := range p.Record {
		add(c.Name)
	}
	for _, c := range p.Passthrough {
		add(c.Name)
	}
	return cols
}

// ErrMissingColumn is wrapped by Resolve when a required column is absent.
var ErrMissingColumn = errors.New("missing required column")

// Resolve checks the required columns of s and fixes the projection.
// record lists a FromRecord format's columns (nil for structure formats, which
// need exactly one of uriColumn or textColumn; textColumn wins when both are
// set). exclude names passthrough columns to drop because the output already
// has them (e.g. the format's own global_plddt). passthrough names the
// columns to copy to the output, in that order; nil means the default set
// (PassthroughColumns, those present). A named column must exist with a
// supported type and be neither an input nor excluded. Errors are
// permanent and name the file and the column.
func Resolve(s Schema, uriColumn, textColumn string, record []format.Column, exclude, passthrough []string) (Projection, error) {
	var p Projection
	need := func(name string, want ...format.ColumnType) error { return s.need(name, want...) }
	if err := need(EntryIDColumn, format.String, format.Int64); err != nil {
		return p, err
	}
	switch {
	case record != nil:
		for _, rc := range record {
			if err := need(rc.Name, rc.Type); err != nil {
				return p, err
			}
		}
		p.Record = record
	case textColumn != "":
		if err := need(textColumn, format.String); err != nil {
			return p, err
		}
		p.TextColumn = textColumn
	default:
		if uriColumn == "" {
			uriColumn = DefaultURIColumn
		}
		if err := need(uriColumn, format.String); err != nil {
			return p, err
		}
		p.URIColumn = uriColumn
	}
	if passthrough == nil {
		for _, name := range PassthroughColumns {
			if slices.Contains(exclude, name) || slices.Contains(p.Columns(), name) {
				continue
			}
			if c, ok := s.Column(name); ok {
				p.Passthrough = append(p.Passthrough, c)
			}
		}
		return p, nil
	}
	for _, name := range passthrough {
		switch {
		case slices.Contains(exclude, name):
			return p, derrors.Permanent(fmt.Errorf("passthrough column %q: the format writes its own %s, computed from the structure; leave it out of --passthrough", name, name))
		case slices.Contains(p.Columns(), name):
			return p, derrors.Permanent(fmt.Errorf("passthrough column %q is an input column, or named twice", name))
		}
		if err := need(name); err != nil {
			return p, fmt.Errorf("passthrough: %w", err)
		}
		c, _ := s.Column(name)
		p.Passthrough = append(p.Passthrough, c)
	}
	return p, nil
}

// Require checks that s has the columns a structure format reads besides
// the structure (format.Format.RecordColumns: a PDB entry's header fields)
// and adds them to p.Record. Errors are permanent and name the file, the
// column and the format's use of it.
func (p *Projection) Require(s Schema, cols []format.Column, why string) error {
	for _, c := range cols {
		if err := s.need(c.Name, c.Type); err != nil {
			return fmt.Errorf("%w (%s)", err, why)
		}
	}
	p.Record = append(p.Record, cols...)
	return nil
}

// need checks that s has the named column, of one of the wanted types when
// any are given.
func (s Schema) need(name string, want ...format.ColumnType) error {
	c, ok := s.Column(name)
	if !ok {
		if i := slices.Index(s.Unsupported, name); i >= 0 {
			t := "?"
			if i < len(s.UnsupportedTypes) {
				t = s.UnsupportedTypes[i]
			}
			return derrors.Permanent(fmt.Errorf("manifest %s: column %q has an unsupported type %s (the pipeline carries strings, integers, floats, booleans and lists of them)", s.URI, name, t))
		}
		return derrors.Permanent(fmt.Errorf("manifest %s: %w %q (its columns: %s)", s.URI, ErrMissingColumn, name, strings.Join(names(s.Columns), ", ")))
	}
	if len(want) > 0 && !slices.Contains(want, c.Type) {
		return derrors.Permanent(fmt.Errorf("manifest %s: column %q has type %s, want %s", s.URI, name, TypeName(c.Type), typeNames(want)))
	}
	return nil
}

// Dropped returns the columns of s that a shard with projection cols
// neither reads nor writes (those of Schema.Columns in file order, then
// those of Schema.Unsupported): the manifest data a run leaves out of its
// output.
func Dropped(s Schema, cols []string) []string {
	var out []string
	for _, c := range s.Columns {
		if !slices.Contains(cols, c.Name) {
			out = append(out, c.Name)
		}
	}
	for _, name := range s.Unsupported {
		if !slices.Contains(cols, name) {
			out = append(out, name)
		}
	}
	return out
}

func names(cols []format.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// TypeName names a column type as a person reads it.
func TypeName(t format.ColumnType) string {
	switch t {
	case format.String:
		return "string"
	case format.Int64:
		return "int64"
	case format.Float64:
		return "float64"
	case format.Bool:
		return "bool"
	case format.Int64List:
		return "list<int64>"
	case format.Float64List:
		return "list<float64>"
	case format.StringList:
		return "list<string>"
	}
	return fmt.Sprintf("type %d", int(t))
}

// typeNames is "a", "a or b", "a, b or c".
func typeNames(ts []format.ColumnType) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = TypeName(t)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
