// Package format is the seam between the shard pipeline and the document
// formats: a Format turns one input (a parsed structure, or a manifest record)
// into one output row: a document with its metadata columns, a designed-in
// filter outcome, or an error.
//
// Formats are pure domain code: no cloud imports, deterministic; their only
// I/O is a constructor's read of the large inputs its options name (a
// rotamer library, weights), through the blob.Store it is given (Env).
package format

import (
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// InputKind says what a format consumes.
type InputKind int

const (
	// FromStructure formats consume a parsed mmCIF structure (fetched from a
	// URI column or read from an inline text column).
	FromStructure InputKind = iota
	// FromRecord formats consume the manifest row itself (e.g. contacts-v1
	// analysis records); there is no per-row fetch.
	FromRecord
)

// ColumnType is the type of one output (or record input) column.
type ColumnType int

const (
	String ColumnType = iota
	Int64
	Float64
	Bool
	Int64List
	Float64List
	StringList
)

// Column is one named, typed column. Nullable columns may carry nil values.
type Column struct {
	Name     string
	Type     ColumnType
	Nullable bool
}

// Input is one row handed to a format.
type Input struct {
	// EntryID is the manifest's entry_id (the document seed for most formats).
	EntryID string
	// Structure is set for FromStructure formats.
	Structure *structure.Structure
	// Record holds the projected manifest columns a format reads
	// (RecordColumns: all of a FromRecord format's input; a structure
	// format's extra columns, such as a PDB entry's header fields), keyed
	// by column name; values are string, int64, float64, bool, []int64,
	// []float64, []string or nil.
	Record map[string]any
	// URI is the row's object (its URI column's value; "" for inline
	// text and record rows).
	URI string
	// Data is the row's object bytes (plain or gzip), set instead of
	// Structure for a format that reads them itself (Raw). They are valid
	// only during Generate: the pipeline may reuse them for the next row.
	Data []byte
}

// Result is the outcome of one row.
type Result struct {
	// Filtered is the designed-in filter reason when no document is written
	// (e.g. "too_short", "multi_chain"); empty when Document is set.
	Filtered string
	// Document is the serialized document.
	Document string
	// Values are the format's own output columns, aligned with Columns().
	// The pipeline adds entry_id, the passthrough columns and sha1 itself
	// only where the format does not declare them.
	Values []any
	// Mix counts the document's tokens by class as the generator wrote
	// them, aligned with its format's MixClasses (Mixer); nil when the
	// format counts none. The corpus report reads these counts instead of
	// decompressing and re-tokenizing every document.
	Mix []int64
	// Units are the documents of a row of a Multi format, in order (none
	// is a valid outcome: the row's ledger row says why); Document,
	// Values, Mix and Filtered are then unused.
	Units []Unit
	// Ledger is a Multi format's ledger row for the manifest row, aligned
	// with its LedgerColumns; nil when the row is Filtered.
	Ledger []any
	// Funnel is a Multi row's named counts (units without a document by
	// reason, chains dropped by reason, documents a known quirk touched):
	// the corpus accounting and the report's funnel sum them.
	Funnel map[string]int64
}

// Unit is one document of a Multi format's row.
type Unit struct {
	// EntryID is the document's own entry id (its seed), e.g. a PDB
	// entry's "1abc_A" or "1abc_assembly1".
	EntryID string
	// Kind is the document's subset ("monomer", "multimer"): the
	// accounting counts documents by it.
	Kind     string
	Document string
	Values   []any
	Mix      []int64
}

// Token mix classes the corpus report reads (Mixer); they are also its
// summary.json keys.
const (
	MixSequence    = "sequence_tokens"
	MixLongRange   = "long_range_contacts"
	MixMediumRange = "medium_range_contacts"
	MixShortRange  = "short_range_contacts"
	MixDistance    = "distance_statements"
	MixThink       = "think_tokens"
	// The coordinate formats' classes (contacts-and-coordinates-v1,
	// contacts-and-crops-v1): contact statements, coordinate statements
	// (mention events, Pass-1 mentions), crops and the atoms in them.
	MixContact    = "contact_statements"
	MixCoordinate = "coordinate_statements"
	// MixCoordinateTokens counts the coordinate section's tokens.
	MixCoordinateTokens = "coordinate_tokens"
	MixCrop             = "crops"
	MixCropAtom         = "crop_atoms"
)

// Mixer is a format that counts its documents' tokens by class while it
// writes them (Result.Mix). MixClasses names the classes in Mix's order,
// the same for every document (the report reads the Mix* classes).
type Mixer interface {
	MixClasses() []string
}

// Format generates documents of one kind. Implementations are safe for
// concurrent use: Generate holds no state between calls.
type Format interface {
	// Name is the format's identifier, e.g. "contacts-and-distances-v2".
	Name() string
	// Kind says whether the format needs a parsed structure or the record.
	Kind() InputKind
	// RecordColumns lists the manifest columns a FromRecord format needs
	// (nil for FromStructure formats).
	RecordColumns() []Column
	// Columns lists the format's output columns, in output order.
	Columns() []Column
	// Generate produces one row's outcome. An error means the row could not
	// be generated (a data-quality failure that fails the shard), never a
	// designed-in filter.
	Generate(in Input) (Result, error)
}

// Raw is a FromStructure format that reads each row's object itself (the
// whole entry, with the categories a parsed Structure does not keep: a
// PDB entry's entities and assemblies): the pipeline fetches the bytes
// into Input.Data and parses nothing. One read and one parse per row.
type Raw interface {
	Format
	ReadsRaw() bool
}

// ReadsRaw reports whether f is a Raw format that reads raw bytes.
func ReadsRaw(f Format) bool {
	r, ok := f.(Raw)
	return ok && r.ReadsRaw()
}

// Multi is a format that writes any number of documents per manifest row
// (Result.Units: contacts-v1 with units=chains,assembly1 writes a PDB
// entry's curated chains and its biological assembly), and a ledger row
// per manifest row (Result.Ledger), written beside the shard's documents
// as a parquet file of LedgerColumns (see package corpus: LedgerURI).
type Multi interface {
	Format
	// LedgerColumns are the ledger file's columns; nil when the format,
	// with its options, writes one document per row (not Multi).
	LedgerColumns() []Column
}

// IsMulti reports whether f writes several documents per row.
func IsMulti(f Format) bool {
	m, ok := f.(Multi)
	return ok && m.LedgerColumns() != nil
}

// Neural is implemented by formats whose per-row cost is a neural network
// forward pass (bio2token-v2). Generate still runs the whole row inline
// (the local runner, on the CPU); in the cloud the shard function runs only
// Adapt per row and hands the adapted inputs of the whole shard to the
// accelerator job (package tpujob), which batches them across shards.
type Neural interface {
	Format
	// Adapt runs the CPU part of Generate for one row: it returns the
	// encoder input for the accelerator job, or a designed-in filter
	// reason (when the row can get no document, checked before any
	// encoder runs), or an error as Generate would return it. Safe for
	// concurrent use.
	Adapt(in Input) (adapted any, filtered string, err error)
	// EncodeAdapted serializes one value that Adapt returned, as the
	// staged object carries it to the accelerator job (one JSON value;
	// the job side of the same format decodes it). A value of a type
	// Adapt does not return is an error. Safe for concurrent use.
	EncodeAdapted(adapted any) ([]byte, error)
}
