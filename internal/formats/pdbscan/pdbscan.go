// Package pdbscan is the PDB header scan as a format: a run over a
// manifest of structure files (`foldcorpus manifest`) whose rows are
// exp222's entries table (package pdbheader: its 15 columns, headers only,
// no atom built), so that the scan runs wherever a run does: locally, or
// through the deployed functions with one shard per row group of a
// mirror's manifest. `foldcorpus select --pdb --input 'OUT/part-*.parquet'`
// reads the shards as it reads `foldcorpus scan`'s table. A row's document
// is empty: the entry's header is its columns. An unreadable file is a row
// with error set, as the scan writes it (select counts it as scan_error),
// never a failed shard.
package pdbscan

import (
	"context"
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
)

// Name is the format's registry name.
const Name = "pdb-header"

// Format is the header scan. It holds nothing and is safe for concurrent
// use.
type Format struct{}

var _ format.Raw = Format{}

// Name implements format.Format.
func (Format) Name() string { return Name }

// Kind implements format.Format: a structure file, read raw.
func (Format) Kind() format.InputKind { return format.FromStructure }

// ReadsRaw implements format.Raw: the scan reads the bytes itself.
func (Format) ReadsRaw() bool { return true }

// RecordColumns implements format.Format (none).
func (Format) RecordColumns() []format.Column { return nil }

// Columns implements format.Format: exp222's entries table.
func (Format) Columns() []format.Column { return pdbheader.Columns() }

// Generate implements format.Format: the entry's header row. Its path is
// the row's URI (the object scanned), its pdb_id exp222's rule on it;
// inline rows use the entry id for both.
func (Format) Generate(in format.Input) (format.Result, error) {
	p := in.URI
	if p == "" {
		p = in.EntryID
	}
	return format.Result{Values: pdbheader.Scan(in.Data, p).Row()}, nil
}

// Spec registers the header scan (format.Spec): no options.
func Spec() format.Spec {
	return format.Spec{Name: Name, Input: format.FromStructure,
		Options: func() []format.Option { return []format.Option{} },
		New: func(_ context.Context, _ format.Env, opts map[string]string) (format.Format, error) {
			for k := range opts {
				return nil, fmt.Errorf("%s has no options (got %q)", Name, k)
			}
			return Format{}, nil
		}}
}
