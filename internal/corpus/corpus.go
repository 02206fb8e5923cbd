// Package corpus defines the output parquet of a shard and reads it back.
//
// Schema (in this order):
//
//	entry_id   string  the manifest's entry_id (or the format's own, if it declares one)
//	structure  string  where the structure came from: the row's URI, or
//	                   "<manifest>#row=<n>" for inline text, "" for record formats
//	document   string  the document text
//	sha1       string  hex SHA-1 of document (UTF-8)
//	...        the format's own columns in its declared order (for
//	           contacts-and-distances-v2: seq_len, global_plddt, contacts_emitted, ...)
//	...        the manifest's passthrough columns: the ones the run names,
//	           or by default those present in the manifest of split,
//	           seq_cluster_id, struct_cluster_id, uniprot_accession, tax_id,
//	           organism_name, global_plddt, seq_len, round, except those the
//	           format already writes
//
// Files are snappy-compressed, written in row groups of a fixed row count, with
// deterministic bytes for the same rows and accounting. The shard's accounting
// (rows_in, docs_out, filtered per reason, skipped, format, options, the
// manifest columns dropped) is the
// JSON value of the key-value metadata key "foldcorpus.accounting"; a
// format that counts its documents' tokens by class (format.Mixer) has them
// under "foldcorpus.mix" (Mix), one count per row and class.
package corpus

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// Core column names.
const (
	EntryID   = "entry_id"
	Structure = "structure"
	Document  = "document"
	SHA1      = "sha1"
)

// MetadataKey is the key-value metadata key holding the Accounting JSON.
const MetadataKey = "foldcorpus.accounting"

// MixKey is the key-value metadata key holding the documents' token mix
// (Mix JSON), in files of a format that counts one (format.Mixer).
const MixKey = "foldcorpus.mix"

// Mix is the token mix of a file's documents as their generator counted
// them while writing each (format.Result.Mix): Counts[c][i] is class
// Classes[c]'s count in row i's document. The corpus report reads it
// from the footer instead of decompressing every document.
type Mix struct {
	Classes []string  `json:"classes"`
	Counts  [][]int64 `json:"counts"`
}

// RowGroupRows is the number of rows per output row group.
const RowGroupRows = 128

// Accounting is a shard's record of what happened to its rows:
// RowsIn = DocsOut + sum(Filtered) + Skipped.
type Accounting struct {
	RunID     string            `json:"run_id"`
	Version   string            `json:"foldcorpus_version,omitempty"` // the build that wrote it (`foldcorpus version`)
	Shard     int               `json:"shard"`
	Total     int               `json:"total"`
	Manifest  string            `json:"manifest"`
	RowGroups []int             `json:"row_groups,omitempty"`
	Format    string            `json:"format"`
	Options   map[string]string `json:"options,omitempty"`
	Lenient   bool              `json:"lenient_missing"`
	RowsIn    int64             `json:"rows_in"`
	DocsOut   int64             `json:"docs_out"`
	Filtered  map[string]int64  `json:"filtered,omitempty"`
	Skipped   int64             `json:"skipped"`
	// SkippedIDs are the entry ids of rows skipped as missing (lenient mode).
	SkippedIDs []string `json:"skipped_ids,omitempty"`
	// LenientParse is set when the run skips the rows whose object fails
	// to parse (--lenient-parse) instead of failing the shard.
	// SkippedParse counts those rows (of Skipped, named in SkippedIDs
	// too); ParseErrors names each with its error, in input order.
	LenientParse bool       `json:"lenient_parse,omitempty"`
	SkippedParse int64      `json:"skipped_parse,omitempty"`
	ParseErrors  []RowIssue `json:"parse_errors,omitempty"`
	// SuspectSeqLen counts the rows whose parsed structure has another
	// length than the manifest's seq_len (SeqLenResidues): a truncated or
	// wrong object, most likely. Their documents are written as any other;
	// Suspects names the first MaxSuspects of them.
	SuspectSeqLen int64      `json:"suspect_seq_len,omitempty"`
	Suspects      []RowIssue `json:"suspects,omitempty"`
	// DroppedColumns are the shard's manifest columns that the output does
	// not carry (neither read as input nor passed through; see
	// manifest.Dropped). A run names the columns to keep with its
	// passthrough list.
	DroppedColumns []string `json:"dropped_columns,omitempty"`
	// Multi is set for a format that writes several documents per row
	// (format.Multi): then Entries counts the rows processed into units
	// (each with its ledger row in the shard's ledger file), UnitDocs the
	// documents by kind ("monomer", "multimer") and Funnel the rows'
	// named counts (format.Result.Funnel).
	Multi    bool             `json:"multi,omitempty"`
	Entries  int64            `json:"entries,omitempty"`
	UnitDocs map[string]int64 `json:"unit_docs,omitempty"`
	Funnel   map[string]int64 `json:"funnel,omitempty"`
}

// RowIssue names one manifest row (its entry id and row number within the
// manifest file) and what was wrong with it.
type RowIssue struct {
	EntryID string `json:"entry_id"`
	Row     int64  `json:"row"`
	Detail  string `json:"detail"`
}

// MaxSuspects bounds the suspect rows a shard's accounting names
// (Accounting.Suspects); the rest are only counted.
const MaxSuspects = 100

// Balanced reports whether every row is counted once: RowsIn = DocsOut +
// sum(Filtered) + Skipped; for a Multi format RowsIn = Entries +
// sum(Filtered) + Skipped and DocsOut = sum(UnitDocs).
func (a Accounting) Balanced() bool { return a.Counts().Balanced() }

// Counts is the accounting's counts as the ledger records them.
func (a Accounting) Counts() ledger.Counts {
	return ledger.Counts{RowsIn: a.RowsIn, DocsOut: a.DocsOut, Filtered: a.Filtered, Skipped: a.Skipped,
		Entries: a.Entries, UnitDocs: a.UnitDocs, Funnel: a.Funnel,
		SkippedParse: a.SkippedParse, SuspectSeqLen: a.SuspectSeqLen}
}

// LedgerDir is the folder, beside a Multi run's shard files, of their
// ledger files.
const LedgerDir = "ledger"

// LedgerURI is the ledger file of the shard file at uri (a Multi format's
// rows, one per entry): LedgerDir/<the shard file's name> in its folder.
func LedgerURI(uri string) string {
	i := strings.LastIndex(uri, "/")
	return uri[:i+1] + LedgerDir + "/" + uri[i+1:]
}

// Schema is the ordered output column list of a run; every shard of a run
// has the same one.
type Schema struct {
	Columns []format.Column
}

// NewSchema builds the output schema from the format's columns and the
// manifest's passthrough columns (see the package doc for the order).
func NewSchema(formatCols, passthrough []format.Column) Schema {
	s := Schema{Columns: []format.Column{
		{Name: EntryID, Type: format.String},
		{Name: Structure, Type: format.String},
		{Name: Document, Type: format.String},
		{Name: SHA1, Type: format.String},
	}}
	for _, group := range [][]format.Column{formatCols, passthrough} {
		for _, c := range group {
			if s.Index(c.Name) < 0 {
				s.Columns = append(s.Columns, c)
			}
		}
	}
	return s
}

// Index returns the position of the named column, or -1.
func (s Schema) Index(name string) int {
	return slices.IndexFunc(s.Columns, func(c format.Column) bool { return c.Name == name })
}

// Names returns the column names in order.
func (s Schema) Names() []string {
	out := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = c.Name
	}
	return out
}

// Arrow returns the arrow schema of s. Columns are nullable unless they are
// core columns or the format declared them non-nullable.
func (s Schema) Arrow() *arrow.Schema {
	fields := make([]arrow.Field, len(s.Columns))
	for i, c := range s.Columns {
		fields[i] = arrow.Field{Name: c.Name, Type: manifest.ArrowType(c.Type), Nullable: c.Nullable || i >= 4}
	}
	return arrow.NewSchema(fields, nil)
}

// Meta is what an output file's footer says.
type Meta struct {
	URI        string
	NumRows    int64
	Columns    []string
	Accounting Accounting
	BytesRead  int64
}

// ReadMeta reads an output file's footer (range reads only): its row count,
// column names and accounting. Idempotent; a file without accounting
// metadata is a permanent error.
func ReadMeta(ctx context.Context, store blob.Store, uri string) (_ Meta, err error) {
	defer derrors.Wrap(&err, "corpus.ReadMeta(%s)", uri)
	obj, err := store.Open(ctx, uri)
	if err != nil {
		return Meta{}, err
	}
	defer obj.Close()
	pf, err := file.NewParquetReader(io.NewSectionReader(obj, 0, obj.Size()))
	if err != nil {
		return Meta{}, derrors.Permanent(fmt.Errorf("not a readable parquet file: %w", err))
	}
	md := pf.MetaData()
	m := Meta{URI: uri, NumRows: md.NumRows}
	for i := 0; i < md.Schema.Root().NumFields(); i++ {
		m.Columns = append(m.Columns, md.Schema.Root().Field(i).Name())
	}
	v := md.KeyValueMetadata().FindValue(MetadataKey)
	if v == nil {
		return Meta{}, derrors.Permanent(fmt.Errorf("no %s metadata: not a foldcorpus output", MetadataKey))
	}
	if err := json.Unmarshal([]byte(*v), &m.Accounting); err != nil {
		return Meta{}, derrors.Permanent(fmt.Errorf("bad %s metadata: %w", MetadataKey, err))
	}
	m.BytesRead = obj.BytesRead()
	return m, nil
}

// Read reads the named columns of an output file (all when columns is nil),
// one row group at a time, calling fn with each batch (see manifest.Rows for
// the value types). Idempotent.
func Read(ctx context.Context, store blob.Store, uri string, columns []string, fn func(*manifest.Rows) error) error {
	if columns == nil {
		m, err := ReadMeta(ctx, store, uri)
		if err != nil {
			return err
		}
		columns = m.Columns
	}
	return manifest.ReadFile(ctx, store, uri, nil, columns, fn)
}

// binaryBuilder is a string or binary column's builder.
type binaryBuilder interface {
	DataLen() int
	Reserve(n int)
	ReserveData(n int)
}

// Writer accumulates a shard's rows and encodes the parquet file in memory.
// Full row groups are encoded by a background goroutine, in order, while
// the caller appends the next rows. Not safe for concurrent use; after an
// error the Writer is unusable. Call Finish, or Close to abandon it.
type Writer struct {
	schema Schema
	as     *arrow.Schema
	buf    fileSink
	fw     *pqarrow.FileWriter
	rb     *array.RecordBuilder
	n      int
	rows   int64
	// dataLen is each string column's bytes in the last row group: the
	// next one reserves as much, instead of growing by doubling.
	dataLen []int
	mix     *Mix
	recs    chan arrow.RecordBatch
	done    chan error
	closed  bool
}

// NewWriter starts an output file with the given schema.
func NewWriter(s Schema) (*Writer, error) {
	w := &Writer{schema: s, as: s.Arrow()}
	props := parquet.NewWriterProperties(
		// Snappy, parquet's usual codec (pyarrow's default): on AFDB
		// documents it costs half the CPU of zstd's fastest level, which
		// was a quarter of a run, for files about a fifth larger
		// (compression ratio 3.9 against 4.8), and readers that go over a
		// corpus many times decompress it several times faster.
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithCreatedBy("foldcorpus"),
		parquet.WithMaxRowGroupLength(RowGroupRows),
		// Documents, URIs and hashes are unique per row: a dictionary only costs.
		parquet.WithDictionaryDefault(false),
		// Pages of about DataPageSize (1 MiB): the page limit is
		// checked after each batch, and a batch of the default 1024
		// rows put a whole row group's documents (7-8 MiB on AFDB)
		// into one page, that a reader decompresses whole. The
		// writer's CPU is the same either way (measured).
		parquet.WithBatchSize(8),
	)
	fw, err := pqarrow.NewFileWriter(w.as, &w.buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		return nil, fmt.Errorf("corpus.NewWriter: %w", err)
	}
	w.fw = fw
	w.rb = array.NewRecordBuilder(memory.DefaultAllocator, w.as)
	w.recs = make(chan arrow.RecordBatch, 1)
	w.done = make(chan error, 1)
	go func() {
		var err error
		for rec := range w.recs {
			if err == nil {
				if werr := w.fw.Write(rec); werr != nil {
					err = fmt.Errorf("corpus: writing row group: %w", werr)
				}
				w.buf.rows += rec.NumRows()
				w.buf.rowsLen = len(w.buf.b)
			}
			rec.Release()
		}
		w.done <- err
	}()
	return w, nil
}

// ExpectRows tells the Writer how many rows the file will hold, so that
// it holds the file in one buffer sized after the first row group instead
// of growing it by doubling (copying the file and touching fresh memory
// each time). It counts only before the first Append (later calls are
// ignored); a wrong count only costs memory or a copy.
func (w *Writer) ExpectRows(n int64) {
	if w.rows == 0 {
		w.buf.expect = n
	}
}

// Append adds one row; values align with the schema's columns (nil for
// null). A value of the wrong type is an error naming the column.
func (w *Writer) Append(values []any) error {
	if len(values) != len(w.schema.Columns) {
		return fmt.Errorf("corpus.Append: %d values for %d columns", len(values), len(w.schema.Columns))
	}
	for i, v := range values {
		if err := manifest.AppendValue(w.rb.Field(i), v); err != nil {
			return fmt.Errorf("corpus.Append: column %q: %w", w.schema.Columns[i].Name, err)
		}
	}
	w.n++
	w.rows++
	if w.n == RowGroupRows {
		w.flush()
	}
	return nil
}

// SetMixClasses makes the file carry its documents' token mix (MixKey)
// with these classes: every row appended from now on must be followed by
// its AppendMix. Call it before the first Append.
func (w *Writer) SetMixClasses(classes []string) error {
	if w.rows > 0 {
		return fmt.Errorf("corpus.SetMixClasses: %d rows already appended", w.rows)
	}
	if len(classes) == 0 {
		return nil
	}
	w.mix = &Mix{Classes: slices.Clone(classes), Counts: make([][]int64, len(classes))}
	return nil
}

// AppendMix records the token mix of the row appended last, aligned with
// the classes of SetMixClasses.
func (w *Writer) AppendMix(counts []int64) error {
	switch {
	case w.mix == nil:
		return fmt.Errorf("corpus.AppendMix: no mix classes set")
	case len(counts) != len(w.mix.Classes):
		return fmt.Errorf("corpus.AppendMix: %d counts for %d classes", len(counts), len(w.mix.Classes))
	case int64(len(w.mix.Counts[0])) != w.rows-1:
		return fmt.Errorf("corpus.AppendMix: mix of row %d after %d rows", len(w.mix.Counts[0]), w.rows)
	}
	for c, n := range counts {
		w.mix.Counts[c] = append(w.mix.Counts[c], n)
	}
	return nil
}

// Rows returns the number of rows appended so far.
func (w *Writer) Rows() int64 { return w.rows }

// flush hands the buffered rows to the encoder as one row group.
func (w *Writer) flush() {
	if w.n == 0 {
		return
	}
	w.n = 0
	if w.dataLen == nil {
		w.dataLen = make([]int, len(w.schema.Columns))
	}
	for i := range w.dataLen {
		if b, ok := w.rb.Field(i).(binaryBuilder); ok {
			w.dataLen[i] = b.DataLen()
		}
	}
	w.recs <- w.rb.NewRecordBatch()
	for i, n := range w.dataLen {
		if b, ok := w.rb.Field(i).(binaryBuilder); ok && n > 0 {
			b.Reserve(RowGroupRows)
			b.ReserveData(n + n/8)
		}
	}
}

// Close abandons the file and stops the encoder; it is a no-op after
// Finish.
func (w *Writer) Close() {
	if !w.closed {
		w.closed = true
		close(w.recs)
		<-w.done
		w.rb.Release()
	}
}

// Finish writes the remaining rows and the footer with the accounting, and
// returns the file's bytes. The Writer cannot be used afterwards.
func (w *Writer) Finish(acc Accounting) ([]byte, error) {
	if w.closed {
		return nil, fmt.Errorf("corpus.Finish: writer closed")
	}
	w.flush()
	w.closed = true
	close(w.recs)
	err := <-w.done
	w.rb.Release()
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(acc)
	if err != nil {
		return nil, err
	}
	if err := w.fw.AppendKeyValueMetadata(MetadataKey, string(js)); err != nil {
		return nil, err
	}
	if w.mix != nil && len(w.mix.Classes) > 0 {
		if n := len(w.mix.Counts[0]); int64(n) != w.rows {
			return nil, fmt.Errorf("corpus.Finish: the token mix of %d rows for %d rows", n, w.rows)
		}
		js, err := json.Marshal(w.mix)
		if err != nil {
			return nil, err
		}
		if err := w.fw.AppendKeyValueMetadata(MixKey, string(js)); err != nil {
			return nil, err
		}
	}
	if err := w.fw.Close(); err != nil {
		return nil, fmt.Errorf("corpus.Finish: %w", err)
	}
	return w.buf.b, nil
}

// fileSink is a Writer's file in memory. Once a row group is written and
// the file's row count is known (ExpectRows), it grows to the whole file's
// estimated size at once.
type fileSink struct {
	b       []byte
	expect  int64 // rows the file will hold; 0: unknown
	rows    int64 // rows in the row groups written so far
	rowsLen int   // their bytes (with the header)
	copied  int   // bytes copied growing b
}

func (s *fileSink) Write(p []byte) (int, error) {
	if need := len(s.b) + len(p); need > cap(s.b) {
		n := max(2*cap(s.b), need, 64<<10)
		if s.expect > s.rows && s.rows > 0 {
			// the file's size at the bytes per row so far, and an
			// eighth more: documents vary, and an estimate short by a
			// little costs a copy of most of the file
			est := float64(s.rowsLen) * float64(s.expect) / float64(s.rows) * 9 / 8
			n = max(need, int(min(est, float64(1<<40))))
		}
		nb := make([]byte, len(s.b), n)
		s.copied += copy(nb, s.b)
		s.b = nb
	}
	s.b = append(s.b, p...)
	return len(p), nil
}
