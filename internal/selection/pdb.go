package selection

// The PDB mode (select --pdb): MarinFold exp222's entry-level selection
// (curate_and_generate.select_entries) over the header scan's entries table
// (internal/pdbheader), without DuckDB: these files build without cgo.

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
)

// The entry filters of exp222, in the order they are tested; an entry's
// filter is the first that fails, or PDBSelected.
const (
	PDBScanError           = "scan_error"
	PDBNoReleaseDate       = "no_release_date"
	PDBReleasedAfterCutoff = "released_after_cutoff"
	PDBResolutionTooLow    = "resolution_too_low"
	PDBNoProteinEntity     = "no_protein_entity"
	PDBEvalSet             = "eval_set"
	PDBSelected            = "selected"
)

// PDBFilters lists the filters in funnel order, PDBSelected last.
func PDBFilters() []string {
	return []string{PDBScanError, PDBNoReleaseDate, PDBReleasedAfterCutoff, PDBResolutionTooLow, PDBNoProteinEntity, PDBEvalSet, PDBSelected}
}

// PDBOptions are the entry-level rules' settings.
type PDBOptions struct {
	// ReleaseCutoff: entries whose initial release date (YYYY-MM-DD) is
	// after it are rejected (compared as strings, as exp222 does); the
	// cutoff day itself is kept.
	ReleaseCutoff string
	// MaxResolution: entries reporting a resolution of at least this many
	// Angstrom are rejected; entries reporting none (NMR) are kept.
	MaxResolution float64
	// Exclude holds lower-case PDB ids held out (the eval set).
	Exclude map[string]bool
}

// DefaultPDBOptions are exp222's defaults (the AF3/Protenix cutoffs).
func DefaultPDBOptions() PDBOptions {
	return PDBOptions{ReleaseCutoff: "2021-09-30", MaxResolution: 9.0, Exclude: map[string]bool{}}
}

// PDBTask is one selected entry as exp222's Task, with its place in the
// processing order.
type PDBTask struct {
	PDBID                  string
	Path                   string
	ReleaseDate            string
	Resolution             *float64
	Method                 string
	EstResidues            int64 // protein residues in the ASU, estimated from the header
	Assembly1ProteinChains int64
	ProcessingRank         int64 // 0-based place in the processing order
	// Cost is the entry's estimated work (EstCost), by which the
	// generation manifest's row groups are balanced.
	Cost int64
}

// PDBSelection is the result of SelectPDB.
type PDBSelection struct {
	Filters []string          // per input entry, in input order: its filter
	Tasks   []PDBTask         // selected entries in processing order
	Counts  map[string]int64  // exp222's tally: total, each filter, selected
	Entries []pdbheader.Entry // the input, for naming rejections
}

// SelectPDB applies exp222's entry-level rules to entries and orders the
// selected ones as exp222 processes them: descending est_residues, ties
// in file-name order (the last element of path, then the whole path).
// est_residues = int(sum(protein entity lengths) * max(1, protein asym
// chains) / max(1, protein entities)). Pure: no I/O.
func SelectPDB(entries []pdbheader.Entry, opts PDBOptions) *PDBSelection {
	s := &PDBSelection{Filters: make([]string, len(entries)), Counts: map[string]int64{"total": int64(len(entries))}, Entries: entries}
	for _, f := range PDBFilters() {
		s.Counts[f] = 0
	}
	for i, e := range entries {
		f := pdbFilter(e, opts)
		s.Filters[i] = f
		s.Counts[f]++
		if f != PDBSelected {
			continue
		}
		var sum int64
		for _, l := range e.ProteinEntityLengths {
			sum += l
		}
		ents := max(1, int64(len(e.ProteinEntityLengths)))
		chains := max(1, e.NProteinAsymChains)
		method := ""
		if e.Method != nil {
			method = *e.Method
		}
		s.Tasks = append(s.Tasks, PDBTask{PDBID: e.PDBID, Path: e.Path, ReleaseDate: *e.ReleaseDate,
			Resolution: e.Resolution, Method: method, EstResidues: int64(float64(sum*chains) / float64(ents)),
			Assembly1ProteinChains: e.NAssembly1ProteinChains})
		t := &s.Tasks[len(s.Tasks)-1]
		t.Cost = EstCost(t.EstResidues, chains, t.Assembly1ProteinChains)
	}
	sort.SliceStable(s.Tasks, func(i, j int) bool {
		a, b := s.Tasks[i], s.Tasks[j]
		if a.EstResidues != b.EstResidues {
			return a.EstResidues > b.EstResidues
		}
		if na, nb := path.Base(a.Path), path.Base(b.Path); na != nb {
			return na < nb
		}
		return a.Path < b.Path
	})
	for i := range s.Tasks {
		s.Tasks[i].ProcessingRank = int64(i)
	}
	return s
}

// pdbFilter is the first of exp222's tests that e fails, or PDBSelected.
func pdbFilter(e pdbheader.Entry, opts PDBOptions) string {
	switch {
	case e.Error != nil && *e.Error != "":
		return PDBScanError
	case e.ReleaseDate == nil || *e.ReleaseDate == "":
		return PDBNoReleaseDate
	case *e.ReleaseDate > opts.ReleaseCutoff:
		return PDBReleasedAfterCutoff
	case e.Resolution != nil && *e.Resolution >= opts.MaxResolution:
		return PDBResolutionTooLow
	case e.NProteinEntities < 1:
		return PDBNoProteinEntity
	case opts.Exclude[e.PDBID]:
		return PDBEvalSet
	}
	return PDBSelected
}

// ReadExcludeIDs reads an eval-set id list as exp222's load_excluded_ids
// does: a CSV whose header has a pdb_id column; each id is trimmed and
// lower-cased. A file without that column, or a row too short for it, is
// an error naming the file (name) and the line.
func ReadExcludeIDs(r io.Reader, name string) (map[string]bool, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, derrors.Permanent(fmt.Errorf("%s: empty (want a CSV with a pdb_id column)", name))
	}
	if err != nil {
		return nil, derrors.Permanent(fmt.Errorf("%s: %w", name, err))
	}
	col := -1
	for i, h := range header {
		if strings.TrimPrefix(h, "\ufeff") == "pdb_id" {
			col = i
			break
		}
	}
	if col < 0 {
		return nil, derrors.Permanent(fmt.Errorf("%s: no pdb_id column in the header %q", name, strings.Join(header, ",")))
	}
	ids := map[string]bool{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return ids, nil
		}
		if err != nil {
			return nil, derrors.Permanent(fmt.Errorf("%s: %w", name, err))
		}
		if col >= len(rec) {
			return nil, derrors.Permanent(fmt.Errorf("%s line %d: no pdb_id value", name, line))
		}
		ids[strings.ToLower(strings.TrimSpace(rec[col]))] = true
	}
}
