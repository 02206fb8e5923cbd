package selection

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus/pdbgolden"
)

// pdbGoldenSet reads one golden file and its eval-id list, and returns
// the entries (exp222's metadata rows as pdbheader.Entry) and lines.
func pdbGoldenSet(t *testing.T, jsonl, evalCSV string) ([]pdbheader.Entry, []pdbgolden.Line, map[string]bool) {
	t.Helper()
	dir := filepath.Join(testcorpus.Dir(t), "golden", "pdb-curation")
	lines, err := pdbgolden.Read(filepath.Join(dir, jsonl))
	if err != nil {
		t.Fatal(err)
	}
	var entries []pdbheader.Entry
	for _, g := range lines {
		m := g.Metadata
		entries = append(entries, pdbheader.Entry{PDBID: m.PDBID, Path: m.Path, ReleaseDate: m.ReleaseDate,
			DepositionDate: m.DepositionDate, Method: m.Method, Resolution: m.Resolution, ResolutionSource: m.ResolutionSource,
			NProteinEntities: m.NProteinEntities, NProteinAsymChains: m.NProteinAsymChains, ProteinEntityIDs: m.ProteinEntityIDs,
			ProteinEntityLengths: m.ProteinEntityLengths, ProteinStrandIDs: m.ProteinStrandIDs,
			NAssembly1ProteinAsyms: m.NAssembly1ProteinAsyms, NAssembly1ProteinChains: m.NAssembly1ProteinChains, Error: m.Error})
	}
	ef, err := os.Open(filepath.Join(dir, evalCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	exclude, err := ReadExcludeIDs(ef, evalCSV)
	if err != nil {
		t.Fatal(err)
	}
	return entries, lines, exclude
}

// TestSelectPDBMatchesExp222: on the 43 real entries (with the eval-set
// list, which holds 1aki) and, as their own run, the 15 edge cases, every
// entry's filter and every task (processing rank included) equal exp222's,
// and the funnel counts equal the golden filters' tally.
func TestSelectPDBMatchesExp222(t *testing.T) {
	for _, set := range []struct{ jsonl, eval string }{
		{"pdb-curation.jsonl", "eval_set_pdb_ids.csv"},
		{"edge/pdb-curation-edge.jsonl", "edge/eval_set_pdb_ids.csv"},
	} {
		entries, lines, exclude := pdbGoldenSet(t, set.jsonl, set.eval)
		opts := DefaultPDBOptions()
		opts.Exclude = exclude
		sel := SelectPDB(entries, opts)
		want := map[string]int64{"total": int64(len(lines))}
		for _, f := range PDBFilters() {
			want[f] = 0
		}
		byID := map[string]PDBTask{}
		for _, task := range sel.Tasks {
			byID[task.PDBID] = task
		}
		for i, g := range lines {
			want[g.EntryFilter]++
			if sel.Filters[i] != g.EntryFilter {
				t.Errorf("%s: filter %s, want %s", g.File, sel.Filters[i], g.EntryFilter)
			}
			got, selected := byID[g.Metadata.PDBID]
			if (g.Task != nil) != selected {
				t.Errorf("%s: selected %v, golden task %v", g.File, selected, g.Task != nil)
				continue
			}
			if g.Task == nil {
				continue
			}
			w := PDBTask{PDBID: g.Task.PDBID, Path: g.Metadata.Path, ReleaseDate: g.Task.ReleaseDate, Resolution: g.Task.Resolution,
				Method: g.Task.Method, EstResidues: g.Task.EstResidues, Assembly1ProteinChains: g.Task.Assembly1ProteinChains, ProcessingRank: g.Task.ProcessingRank}
			got.Cost = 0 // ours: the balancing's estimate
			if !reflect.DeepEqual(got, w) {
				t.Errorf("%s: task %+v, want %+v", g.File, got, w)
			}
		}
		if !reflect.DeepEqual(sel.Counts, want) {
			t.Errorf("%s: counts %v, want %v", set.jsonl, sel.Counts, want)
		}
		t.Logf("%s: %v", set.jsonl, sel.Counts)
	}
}

// TestSelectPDBRules checks each rule at and beside its boundary and the
// flags that move them.
func TestSelectPDBRules(t *testing.T) {
	s := func(v string) *string { return &v }
	f := func(v float64) *float64 { return &v }
	base := pdbheader.Entry{PDBID: "1abc", Path: "x/1abc.cif", ReleaseDate: s("2021-09-30"), Resolution: f(8.99), NProteinEntities: 1}
	for _, tc := range []struct {
		name string
		edit func(*pdbheader.Entry, *PDBOptions)
		want string
	}{
		{"defaults", func(*pdbheader.Entry, *PDBOptions) {}, PDBSelected},
		{"error", func(e *pdbheader.Entry, _ *PDBOptions) { e.Error = s("boom"); e.ReleaseDate = nil }, PDBScanError},
		{"empty date", func(e *pdbheader.Entry, _ *PDBOptions) { e.ReleaseDate = s("") }, PDBNoReleaseDate},
		{"day after", func(e *pdbheader.Entry, _ *PDBOptions) { e.ReleaseDate = s("2021-10-01") }, PDBReleasedAfterCutoff},
		{"later cutoff", func(e *pdbheader.Entry, o *PDBOptions) {
			e.ReleaseDate = s("2021-10-01")
			o.ReleaseCutoff = "2022-01-01"
		}, PDBSelected},
		{"9 A", func(e *pdbheader.Entry, _ *PDBOptions) { e.Resolution = f(9) }, PDBResolutionTooLow},
		{"no resolution", func(e *pdbheader.Entry, _ *PDBOptions) { e.Resolution = nil }, PDBSelected},
		{"max 8", func(e *pdbheader.Entry, o *PDBOptions) { o.MaxResolution = 8 }, PDBResolutionTooLow},
		{"no protein", func(e *pdbheader.Entry, _ *PDBOptions) { e.NProteinEntities = 0 }, PDBNoProteinEntity},
		{"eval set", func(e *pdbheader.Entry, o *PDBOptions) { o.Exclude = map[string]bool{"1abc": true} }, PDBEvalSet},
		{"date before resolution", func(e *pdbheader.Entry, _ *PDBOptions) { e.ReleaseDate = s("2022-01-01"); e.Resolution = f(20) }, PDBReleasedAfterCutoff},
	} {
		e, o := base, DefaultPDBOptions()
		tc.edit(&e, &o)
		if got := SelectPDB([]pdbheader.Entry{e}, o).Filters[0]; got != tc.want {
			t.Errorf("%s: filter %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestReadExcludeIDs: exp222's rule (pdb_id column, trimmed, lower-cased)
// and the errors for a list without the column.
func TestReadExcludeIDs(t *testing.T) {
	ids, err := ReadExcludeIDs(strings.NewReader("stem,pdb_id\nx, 1AKI \ny,2abc\n"), "ids.csv")
	if err != nil || !reflect.DeepEqual(ids, map[string]bool{"1aki": true, "2abc": true}) {
		t.Errorf("ids %v, %v", ids, err)
	}
	for _, bad := range []string{"", "id\n1aki\n", "a,pdb_id\nx\n"} {
		if _, err := ReadExcludeIDs(strings.NewReader(bad), "ids.csv"); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("ReadExcludeIDs(%q) = %v, want a permanent error", bad, err)
		}
	}
}

// TestWritePDB writes the golden selection and reads it back: the
// generation manifest in processing order, the filters file, the stats'
// funnel; a second write into the same folder is refused.
func TestWritePDB(t *testing.T) {
	entries, lines, exclude := pdbGoldenSet(t, "pdb-curation.jsonl", "eval_set_pdb_ids.csv")
	opts := DefaultPDBOptions()
	opts.Exclude = exclude
	sel := SelectPDB(entries, opts)
	out := filepath.Join(t.TempDir(), "sel")
	var st PDBStats
	if err := WritePDB(context.Background(), sel, out, 10, &st); err != nil {
		t.Fatal(err)
	}
	// every selected entry once, with its processing rank; each row group
	// (a shard's unit) largest entry first
	var rank int64
	seen := map[int64]bool{}
	for _, sh := range st.Shards {
		err := manifest.ReadFile(context.Background(), localblob.Store{}, filepath.Join(out, sh.Path), nil,
			[]string{"entry_id", "est_residues", "processing_rank"}, func(r *manifest.Rows) error {
				last := int64(-1)
				for _, v := range r.Values {
					rk := v[2].(int64)
					task := sel.Tasks[rk]
					if v[0] != task.PDBID || v[1] != task.EstResidues || seen[rk] {
						t.Errorf("manifest row %d: %v, want %s %d %d once", rank, v, task.PDBID, task.EstResidues, rk)
					}
					if last >= 0 && task.Cost > last {
						t.Errorf("row group at row %d: %s (cost %d) after a cheaper entry (%d)", r.First, task.PDBID, task.Cost, last)
					}
					seen[rk], last = true, task.Cost
					rank++
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	if rank != int64(len(sel.Tasks)) || len(st.Shards) != (len(sel.Tasks)+9)/10 {
		t.Errorf("%d rows in %d shards, want %d", rank, len(st.Shards), len(sel.Tasks))
	}
	var row int
	err := manifest.ReadFile(context.Background(), localblob.Store{}, filepath.Join(out, PDBFiltersFile), nil, []string{"pdb_id", "entry_filter"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			if v[0] != lines[row].Metadata.PDBID || v[1] != lines[row].EntryFilter {
				t.Errorf("filters row %d: %v, want %s %s", row, v, lines[row].Metadata.PDBID, lines[row].EntryFilter)
			}
			row++
		}
		return nil
	})
	if err != nil || row != len(lines) {
		t.Fatalf("filters file: %d rows, %v", row, err)
	}
	b, err := os.ReadFile(filepath.Join(out, PDBStatsFile))
	if err != nil {
		t.Fatal(err)
	}
	var back PDBStats
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, f := range back.Funnel {
		sum += f.Rows
	}
	if sum != back.RowsIn || back.RowsIn != int64(len(lines)) || len(back.Funnel) != len(PDBFilters()) {
		t.Errorf("funnel %v sums to %d, rows in %d", back.Funnel, sum, back.RowsIn)
	}
	if err := WritePDB(context.Background(), sel, out, 10, &st); !errors.Is(err, derrors.ErrExists) {
		t.Errorf("second write: %v, want ErrExists", err)
	}
}
