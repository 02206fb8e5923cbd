package pdbunits

import (
	"fmt"

	"github.com/foldcorpus/foldcorpus/internal/curation"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// Task is exp222's Task for a selected entry: the header fields its rows
// carry and assembly 1's protein chain count from the header scan, as the
// PDB selection's manifest holds them (TaskColumns).
type Task struct {
	Meta
	HeaderChains int // assembly1_protein_chains
}

// TaskColumns are the manifest columns a Task is read from (with the
// entry id, whose file name gives the PDB id).
func TaskColumns() []format.Column {
	return []format.Column{
		{Name: "release_date", Type: format.String},
		{Name: "resolution", Type: format.Float64, Nullable: true},
		{Name: "method", Type: format.String},
		{Name: "assembly1_protein_chains", Type: format.Int64},
	}
}

// TaskFromRecord is the Task of a manifest row (TaskColumns' values, as
// format.Input.Record holds them) for the entry pdbID. A missing or
// mistyped column is an error naming it.
func TaskFromRecord(pdbID string, rec map[string]any) (Task, error) {
	t := Task{Meta: Meta{PDBID: pdbID}}
	str := func(col string) (string, error) {
		s, ok := rec[col].(string)
		if !ok {
			return "", fmt.Errorf("entry %s: column %s: want a string, got %T", pdbID, col, rec[col])
		}
		return s, nil
	}
	var err error
	if t.ReleaseDate, err = str("release_date"); err != nil {
		return t, err
	}
	if t.Method, err = str("method"); err != nil {
		return t, err
	}
	switch v := rec["resolution"].(type) {
	case nil:
	case float64:
		t.Resolution = &v
	default:
		return t, fmt.Errorf("entry %s: column resolution: want a float or null, got %T", pdbID, v)
	}
	n, ok := rec["assembly1_protein_chains"].(int64)
	if !ok || n < 0 {
		return t, fmt.Errorf("entry %s: column assembly1_protein_chains: want a count, got %v (%T)", pdbID, rec["assembly1_protein_chains"], rec["assembly1_protein_chains"])
	}
	t.HeaderChains = int(n)
	return t, nil
}

// ProcessEntry is exp222's process_entry for one selected entry's mmCIF
// bytes (plain or gzip): read (structure and entity/assembly categories),
// curate (curation.Curate with opt.MaxChains and the task's header chain
// count), then Build. An entry that cannot be read or has no model is an
// error naming it (exp222 writes a ledger row with its read error; here
// the row fails).
func ProcessEntry(data []byte, task Task, opt Options) (*Entry, error) {
	e, err := mmcif.ReadEntry(data)
	if err != nil {
		return nil, fmt.Errorf("entry %s: read: %w", task.PDBID, err)
	}
	header := task.HeaderChains
	if opt.NoMultimer {
		header = 0 // no expansion: the ledger's status is replaced below
	}
	res, err := curation.Curate(e, curation.Options{MaxChains: opt.MaxChains, HeaderChains: &header})
	if err != nil {
		return nil, fmt.Errorf("entry %s: %w", task.PDBID, err)
	}
	if opt.NoMultimer {
		res.HeaderChains, res.MultimerStatus = task.HeaderChains, StatusNotRequested
	}
	if opt.NoMonomers {
		res.Monomers = nil
	}
	return Build(res, task.Meta, opt)
}
