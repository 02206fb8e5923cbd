package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
	"github.com/foldcorpus/foldcorpus/internal/selection"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
	"github.com/foldcorpus/foldcorpus/planner"
)

// TestSelectPDBCommand runs folder -> manifest -> scan -> select --pdb on
// the gzipped golden mirror (two unreadable files added) with exp222's
// eval-id list: every entry's filter equals exp222's entry_filter (the two
// added files scan_error), the generation manifest holds exp222's tasks in
// its processing order, and the stats' funnel counts them all.
func TestSelectPDBCommand(t *testing.T) {
	ctx := context.Background()
	dir := pdbMirror(t)
	work := t.TempDir()
	m, entries, out := filepath.Join(work, "m.parquet"), filepath.Join(work, "entries.parquet"), filepath.Join(work, "sel")
	if err := runManifest(ctx, []string{dir + "/**/*.cif.gz", "--out", m, "--id", "pdb"}); err != nil {
		t.Fatal(err)
	}
	if err := runScan(ctx, []string{"--manifest", m, "--out", entries}); err != nil {
		t.Fatal(err)
	}
	eval := filepath.Join(testcorpus.Dir(t), "golden", "pdb-curation", "eval_set_pdb_ids.csv")
	if err := runSelect(ctx, []string{"--pdb", "--input", entries, "--exclude-ids", eval, "--out", out, "--shard-size", "16"}); err != nil {
		t.Fatal(err)
	}
	wantFilter := map[string]string{"9bad": "scan_error", "9emp": "scan_error"}
	type task struct {
		PDBID          string `json:"pdb_id"`
		EstResidues    int64  `json:"est_residues"`
		A1Chains       int64  `json:"assembly1_protein_chains"`
		ProcessingRank int64  `json:"processing_rank"`
	}
	var wantTasks []task
	for _, g := range pdbGoldenLines(t) {
		var id, f string
		json.Unmarshal(g["pdb_id"], &id)
		json.Unmarshal(g["entry_filter"], &f)
		wantFilter[id] = f
		var tk *task
		json.Unmarshal(g["task"], &tk)
		if tk != nil {
			wantTasks = append(wantTasks, *tk)
		}
	}
	funnel := map[string]int64{}
	err := manifest.ReadFile(ctx, localblob.Store{}, filepath.Join(out, selection.PDBFiltersFile), nil, []string{"pdb_id", "entry_filter"}, func(r *manifest.Rows) error {
		for _, v := range r.Values {
			if wantFilter[v[0].(string)] != v[1] {
				t.Errorf("%s: filter %v, want %s", v[0], v[1], wantFilter[v[0].(string)])
			}
			funnel[v[1].(string)]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var st selection.PDBStats
	b, err := os.ReadFile(filepath.Join(out, selection.PDBStatsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, f := range st.Funnel {
		if funnel[f.Filter] != f.Rows {
			t.Errorf("funnel %s: %d in the stats, %d in the filters file", f.Filter, f.Rows, funnel[f.Filter])
		}
	}
	if st.RowsIn != 45 || st.Counts["scan_error"] != 2 || st.Counts["eval_set"] != 1 {
		t.Errorf("stats: %d rows in, counts %v", st.RowsIn, st.Counts)
	}
	var got []task
	for _, sh := range st.Shards {
		err := manifest.ReadFile(ctx, localblob.Store{}, filepath.Join(out, sh.Path), nil,
			[]string{"entry_id", "est_residues", "assembly1_protein_chains", "processing_rank"}, func(r *manifest.Rows) error {
				for _, v := range r.Values {
					got = append(got, task{v[0].(string), v[1].(int64), v[2].(int64), v[3].(int64)})
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(wantTasks) || len(st.Shards) != (len(wantTasks)+15)/16 {
		t.Fatalf("%d tasks in %d shards, want %d", len(got), len(st.Shards), len(wantTasks))
	}
	byRank := map[int64]task{}
	for _, w := range wantTasks {
		byRank[w.ProcessingRank] = w
	}
	// every selected entry once, under exp222's processing rank; the rows
	// are dealt into row groups by cost (selection.BalanceGroups)
	seen := map[int64]bool{}
	for i, g := range got {
		if w := byRank[g.ProcessingRank]; g != w || seen[g.ProcessingRank] {
			t.Errorf("manifest row %d: %+v, want %+v once", i, g, w)
		}
		seen[g.ProcessingRank] = true
	}
	// the AFDB mode still answers (a missing --input is its usage error)
	if err := runSelect(ctx, []string{"--out", filepath.Join(work, "afdb")}); err == nil {
		t.Error("select without --pdb and --input: no error")
	}
}

// TestSelectPDBRefusesOneEntryTwice: an entry scanned from two files (the
// same pdb_id selected twice) is refused, naming both files.
func TestSelectPDBRefusesOneEntryTwice(t *testing.T) {
	date := "2000-01-01"
	e := pdbheader.Entry{PDBID: "1abc", Path: "a/1abc.cif", ReleaseDate: &date, NProteinEntities: 1}
	f := e
	f.Path = "b/1abc.cif.gz"
	err := selectedDuplicates(selection.SelectPDB([]pdbheader.Entry{e, f}, selection.DefaultPDBOptions()))
	if !errors.Is(err, planner.ErrDuplicateID) || !strings.Contains(err.Error(), "a/1abc.cif and b/1abc.cif.gz") {
		t.Fatalf("err %v, want a duplicate naming both files", err)
	}
	if err := selectedDuplicates(selection.SelectPDB([]pdbheader.Entry{e}, selection.DefaultPDBOptions())); err != nil {
		t.Fatal(err)
	}
}
