package report

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Story is a PDB corpus's way from the folder of files to the published
// documents, told in one place (the report page and the dataset card):
// the entries scanned, selected and rejected by reason (select --pdb's
// selection_stats.json beside the run's manifest), the run's own funnel
// (Accounting: entries, chains kept and dropped, documents by subset),
// the deduplicated cut (when the folder is one: dedup_stats.json), and
// the leakage audit (report/leakage.json, written by foldcorpus
// leakage). Each part is nil when its file is not there.
type Story struct {
	Selection *SelectionStory `json:"selection,omitempty"`
	Dedup     *DedupStory     `json:"dedup,omitempty"`
	Leakage   []LeakageRow    `json:"leakage,omitempty"`
}

// SelectionStory is select --pdb's funnel.
type SelectionStory struct {
	File     string     `json:"file"`
	Scanned  int64      `json:"scanned"`
	Selected int64      `json:"selected"`
	Rejected []Rejected `json:"rejected"` // in select's test order, the ones with entries
}

// Rejected is one filter of the selection and the entries it took.
type Rejected struct {
	Filter  string `json:"filter"`
	Entries int64  `json:"entries"`
}

// DedupStory is a deduplicated cut's accounting.
type DedupStory struct {
	File       string           `json:"file"`
	RowsIn     int64            `json:"rows_in"`
	OtherRows  int64            `json:"rows_other_subset"`
	Groups     int              `json:"groups"`
	Kept       int64            `json:"kept"`
	Duplicates int64            `json:"dropped_duplicates"`
	BySubset   map[string]int64 `json:"kept_by_subset"`
}

// LeakageRow is one subset's leakage figures (nil where not measured).
type LeakageRow struct {
	Subset      string   `json:"subset"`
	Documents   int64    `json:"documents"`
	EvalPresent *int64   `json:"eval_pdb_ids_present"`
	Exact       *int64   `json:"exact_sequence_matches"`
	ExactFrac   *float64 `json:"exact_sequence_fraction"`
	Homologous  *int64   `json:"cluster40_homologous"`
	HomologFrac *float64 `json:"cluster40_fraction"`
	Covered     *int64   `json:"eval_entries_covered"`
	EvalEntries int64    `json:"eval_entries_total"`
	CoveredFrac *float64 `json:"eval_entries_covered_fraction"`
}

// readStory reads the story's files for the run in dir, whose manifest
// is manifest (a glob or file; "" when unknown). A file that is not there
// leaves its part out; one that is there but unreadable fails the report,
// naming it.
func readStory(ctx context.Context, store blob.Store, dir, manifest string) (*Story, error) {
	st := &Story{}
	var stats struct {
		Mode   string `json:"mode"`
		RowsIn int64  `json:"rows_in"`
		Funnel []struct {
			Filter string `json:"filter"`
			Rows   int64  `json:"rows"`
		} `json:"funnel"`
		RowsSelected int64 `json:"rows_selected"`
	}
	if manifest != "" {
		// select --pdb writes OUT/manifest/shard_*.parquet beside
		// OUT/selection_stats.json
		mdir := path.Dir(manifest)
		if strings.ContainsAny(path.Base(manifest), "*?[") || strings.HasSuffix(manifest, ".parquet") {
			mdir = path.Dir(mdir)
		}
		file := joinURI(mdir, "selection_stats.json")
		ok, err := readJSON(ctx, store, file, &stats)
		if err != nil {
			return nil, err
		}
		if ok && stats.Mode == "pdb" {
			sel := &SelectionStory{File: file, Scanned: stats.RowsIn, Selected: stats.RowsSelected}
			for _, f := range stats.Funnel {
				if f.Filter != "selected" && f.Rows > 0 {
					sel.Rejected = append(sel.Rejected, Rejected{Filter: f.Filter, Entries: f.Rows})
				}
			}
			st.Selection = sel
		}
	}
	var dd struct {
		RowsIn     int64            `json:"rows_in"`
		Other      int64            `json:"rows_other_subset"`
		Groups     int              `json:"groups"`
		DocsOut    int64            `json:"docs_out"`
		Duplicates int64            `json:"dropped_duplicates"`
		BySubset   map[string]int64 `json:"docs_by_subset"`
	}
	file := joinURI(dir, "dedup_stats.json")
	ok, err := readJSON(ctx, store, file, &dd)
	if err != nil {
		return nil, err
	}
	if ok {
		st.Dedup = &DedupStory{File: file, RowsIn: dd.RowsIn, OtherRows: dd.Other, Groups: dd.Groups, Kept: dd.DocsOut,
			Duplicates: dd.Duplicates, BySubset: dd.BySubset}
	}
	var lk struct {
		Figures []LeakageRow `json:"figures"`
	}
	if _, err = readJSON(ctx, store, joinURI(dir, "report/leakage.json"), &lk); err != nil {
		return nil, err
	}
	st.Leakage = lk.Figures
	if st.Selection == nil && st.Dedup == nil && st.Leakage == nil {
		return nil, nil
	}
	return st, nil
}

// readJSON decodes the object at uri into v; false when there is none.
func readJSON(ctx context.Context, store blob.Store, uri string, v any) (bool, error) {
	data, err := store.ReadAll(ctx, uri)
	if errors.Is(err, derrors.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, derrors.Permanent(errors.Join(errors.New(uri+": not the JSON foldcorpus writes"), err))
	}
	return true, nil
}

// joinURI joins a folder (path or URI) and a relative name.
func joinURI(dir, name string) string { return strings.TrimSuffix(dir, "/") + "/" + name }

// manifestOf is the run's manifest: its ledger record's, else the one
// the first file's footer names.
func manifestOf(opts Options, files []*shardFile) string {
	if opts.Run != nil && opts.Run.Manifest != "" {
		return opts.Run.Manifest
	}
	for _, f := range files {
		var acc struct {
			Manifest string `json:"manifest"`
		}
		if v, ok := f.Meta[metaKey]; ok && json.Unmarshal([]byte(v), &acc) == nil && acc.Manifest != "" {
			return acc.Manifest
		}
	}
	return ""
}
