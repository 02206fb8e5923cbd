package selection

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// Output names of the PDB mode, under the output folder.
const (
	PDBStatsFile   = "selection_stats.json" // the same name select's AFDB rounds write
	PDBManifestDir = "manifest"             // the generation manifest's shards
	PDBFiltersFile = "entry_filters.parquet"
)

// PDBManifestColumns is the generation manifest's schema: entry_id (the
// PDB id), gcs_uri (the scanned file), then exp222's Task columns and the
// processing rank. est_residues is the cost estimate a run balances
// shards by.
func PDBManifestColumns() []format.Column {
	return []format.Column{
		{Name: manifest.EntryIDColumn, Type: format.String},
		{Name: manifest.DefaultURIColumn, Type: format.String},
		{Name: "release_date", Type: format.String},
		{Name: "resolution", Type: format.Float64, Nullable: true},
		{Name: "method", Type: format.String},
		{Name: "est_residues", Type: format.Int64},
		{Name: "assembly1_protein_chains", Type: format.Int64},
		{Name: "processing_rank", Type: format.Int64},
	}
}

// PDBFunnelStep is one line of the funnel: a filter and the entries it
// took (or, for "selected", kept).
type PDBFunnelStep struct {
	Filter string `json:"filter"`
	Rows   int64  `json:"rows"`
}

// PDBBalance says how even the generation manifest's row groups are by
// cost (EstCost): a run's shard is one or more row groups.
type PDBBalance struct {
	RowGroupRows int   `json:"row_group_rows"`
	RowGroups    int   `json:"row_groups"`
	MaxCost      int64 `json:"max_group_cost"`
	MeanCost     int64 `json:"mean_group_cost"`
	// LargestEntryShare is the costliest entry's share of its group's
	// cost (1: it is its group's whole cost, its shard's wall).
	LargestEntryShare float64 `json:"largest_entry_share_of_its_group"`
	total, largest    int64
}

func (b *PDBBalance) add(cost int64, g []PDBTask) {
	b.RowGroups++
	b.total += cost
	b.MaxCost = max(b.MaxCost, cost)
	b.MeanCost = b.total / int64(b.RowGroups)
	if len(g) > 0 && cost > 0 && g[0].Cost > 0 {
		// g is in descending cost: g[0] is its largest entry
		if share := float64(g[0].Cost) / float64(cost); b.LargestEntryShare == 0 || g[0].Cost >= b.largest {
			b.LargestEntryShare, b.largest = share, g[0].Cost
		}
	}
}

// PDBShard is one written shard of the generation manifest.
type PDBShard struct {
	Index int    `json:"index"`
	Rows  int64  `json:"rows"`
	Path  string `json:"path"` // relative to the output folder
}

// PDBStats is selection_stats.json of the PDB mode.
type PDBStats struct {
	Mode   string `json:"mode"` // "pdb"
	Config struct {
		Inputs        []string `json:"inputs"`
		ReleaseCutoff string   `json:"release_cutoff"`
		MaxResolution float64  `json:"max_resolution"`
		ExcludeIDs    string   `json:"exclude_ids_file"`
		ExcludedIDs   int      `json:"excluded_ids"`
		ShardSize     int      `json:"shard_size"`
	} `json:"config"`
	Columns        []string         `json:"columns"`
	RowsIn         int64            `json:"rows_in"`
	Funnel         []PDBFunnelStep  `json:"funnel"` // every filter in test order, selected last
	Counts         map[string]int64 `json:"counts"` // exp222's tally (total, each filter, selected)
	RowsSelected   int64            `json:"rows_selected"`
	EstResidues    int64            `json:"est_residues_selected"`
	FiltersFile    string           `json:"filters_file"` // every entry's filter, in input order
	Shards         []PDBShard       `json:"shards"`
	Balance        PDBBalance       `json:"balance"`
	ElapsedSeconds float64          `json:"elapsed_seconds"`
}

// WritePDB writes sel under outDir: the generation manifest in processing
// order as PDBManifestDir/shard_NNNNN.parquet (shardSize rows each),
// entry_filters.parquet (pdb_id, path, entry_filter, error of every input
// entry) and selection_stats.json (st, completed here). Like Select it
// writes into a hidden staging folder and renames it into place, so
// outDir holds all of it or nothing; a non-empty outDir is an ErrExists
// error. Not safe for two calls with one outDir.
func WritePDB(ctx context.Context, sel *PDBSelection, outDir string, shardSize int, st *PDBStats) (err error) {
	defer derrors.Wrap(&err, "selection.WritePDB(%s)", outDir)
	if shardSize < 1 {
		return derrors.Permanent(fmt.Errorf("shard size %d < 1", shardSize))
	}
	if entries, err := os.ReadDir(outDir); err == nil && len(entries) > 0 {
		return fmt.Errorf("output directory %s is not empty: %w", outDir, derrors.ErrExists)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	parent, base := filepath.Split(filepath.Clean(outDir))
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	staging, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(staging)
		}
	}()
	if err := os.Mkdir(filepath.Join(staging, PDBManifestDir), 0o755); err != nil {
		return err
	}
	st.Mode, st.Config.ShardSize, st.FiltersFile = "pdb", shardSize, PDBFiltersFile
	st.Counts, st.RowsIn, st.RowsSelected = sel.Counts, sel.Counts["total"], int64(len(sel.Tasks))
	st.Funnel, st.Shards, st.Columns, st.EstResidues = nil, nil, nil, 0
	for _, f := range PDBFilters() {
		st.Funnel = append(st.Funnel, PDBFunnelStep{f, sel.Counts[f]})
	}
	cols := PDBManifestColumns()
	for _, c := range cols {
		st.Columns = append(st.Columns, c.Name)
	}
	groups := BalanceGroups(sel.Tasks, min(shardSize, PDBRowGroupRows))
	perFile := max(1, shardSize/PDBRowGroupRows)
	st.Balance = PDBBalance{RowGroupRows: min(shardSize, PDBRowGroupRows)}
	for lo := 0; lo < len(groups) || lo == 0; lo += perFile {
		if err := ctx.Err(); err != nil {
			return err
		}
		var file [][][]any
		var n int64
		for _, g := range groups[lo:min(len(groups), lo+perFile)] {
			rows := make([][]any, len(g))
			var cost int64
			for i, t := range g {
				var res any
				if t.Resolution != nil {
					res = *t.Resolution
				}
				rows[i] = []any{t.PDBID, t.Path, t.ReleaseDate, res, t.Method, t.EstResidues, t.Assembly1ProteinChains, t.ProcessingRank}
				st.EstResidues += t.EstResidues
				cost += t.Cost
			}
			st.Balance.add(cost, g)
			file = append(file, rows)
			n += int64(len(rows))
		}
		if file == nil {
			file = [][][]any{nil}
		}
		rel := filepath.Join(PDBManifestDir, fmt.Sprintf("shard_%05d.parquet", len(st.Shards)))
		data, err := manifest.EncodeGroups(cols, file)
		if err == nil {
			err = os.WriteFile(filepath.Join(staging, rel), data, 0o644)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		st.Shards = append(st.Shards, PDBShard{Index: len(st.Shards), Rows: n, Path: rel})
		if len(groups) == 0 {
			break
		}
	}
	frows := make([][]any, len(sel.Entries))
	for i, e := range sel.Entries {
		var msg any
		if e.Error != nil {
			msg = *e.Error
		}
		frows[i] = []any{e.PDBID, e.Path, sel.Filters[i], msg}
	}
	fcols := []format.Column{{Name: "pdb_id", Type: format.String}, {Name: "path", Type: format.String},
		{Name: "entry_filter", Type: format.String}, {Name: "error", Type: format.String, Nullable: true}}
	if err := writeParquet(filepath.Join(staging, PDBFiltersFile), fcols, frows); err != nil {
		return err
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(staging, PDBStatsFile), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.Chmod(staging, 0o755); err != nil {
		return err
	}
	os.Remove(outDir) // an empty outDir is replaced; a non-empty one makes Rename fail
	return os.Rename(staging, outDir)
}

func writeParquet(p string, cols []format.Column, rows [][]any) error {
	data, err := manifest.Encode(cols, rows, 1000)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return os.WriteFile(p, data, 0o644)
}
