package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
	"github.com/foldcorpus/foldcorpus/internal/selection"
	"github.com/foldcorpus/foldcorpus/planner"
)

// isPDBSelect reports whether select's arguments ask for the PDB mode.
func isPDBSelect(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--pdb" || a == "-pdb" || a == "--pdb=true" || a == "-pdb=true" {
			return true
		}
	}
	return false
}

func runSelectPDB(ctx context.Context, args []string) error {
	opts := selection.DefaultPDBOptions()
	fs := flag.NewFlagSet("select --pdb", flag.ContinueOnError)
	fs.Bool("pdb", true, "the PDB mode (this help)")
	input := fs.String("input", "", "entries table written by foldcorpus scan: a parquet file, a glob (quote it) or a folder (every *.parquet in it)")
	exclude := fs.String("exclude-ids", "", "CSV with a pdb_id column: entries held out (exp222's eval_set_pdb_ids.csv); empty: none")
	fs.StringVar(&opts.ReleaseCutoff, "release-cutoff", opts.ReleaseCutoff, "reject entries first released after this day (YYYY-MM-DD; the day itself is kept)")
	fs.Float64Var(&opts.MaxResolution, "max-resolution", opts.MaxResolution, "reject entries reporting a resolution of at least this many Angstrom (entries reporting none are kept)")
	out := fs.String("out", "", "output folder (must not exist or be empty)")
	shardSize := fs.Int("shard-size", 20000, "rows per generation-manifest shard")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: foldcorpus select --pdb --input entries.parquet --out DIR [--exclude-ids FILE] [flags]

MarinFold exp222's entry-level selection over the header scan: each entry
takes the first filter it fails, in this order:
  scan_error             the scan could not read the file
  no_release_date        no initial release date
  released_after_cutoff  released after --release-cutoff
  resolution_too_low     resolution >= --max-resolution
  no_protein_entity      no polypeptide(L) entity
  eval_set               its pdb_id is in --exclude-ids
and is selected otherwise. Writes
  OUT/%s/shard_NNNNN.parquet  the generation manifest in exp222's processing
      order (descending est_residues, ties in file-name order), columns:
      %s
  OUT/%s  every entry's filter
  OUT/%s  the funnel, every filter counted

flags:
`, selection.PDBManifestDir, strings.Join(columnNames(selection.PDBManifestColumns()), ", "), selection.PDBFiltersFile, selection.PDBStatsFile)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if err := extraArgs("--input", fs.Args()); err != nil {
		return err
	}
	if *input == "" || *out == "" {
		return &exitError{2, errors.New("need --input ENTRIES and --out DIR (see `foldcorpus select --pdb -h`)")}
	}
	if _, err := time.Parse("2006-01-02", opts.ReleaseCutoff); err != nil {
		return &exitError{2, fmt.Errorf("--release-cutoff %q: want YYYY-MM-DD", opts.ReleaseCutoff)}
	}
	start := time.Now()
	store := cliStores()
	defer store.Close()
	var st selection.PDBStats
	st.Config.ReleaseCutoff, st.Config.MaxResolution, st.Config.ExcludeIDs = opts.ReleaseCutoff, opts.MaxResolution, *exclude
	if *exclude != "" {
		f, err := os.Open(*exclude)
		if err != nil {
			return fmt.Errorf("--exclude-ids: %w", err)
		}
		opts.Exclude, err = selection.ReadExcludeIDs(f, *exclude)
		f.Close()
		if err != nil {
			return err
		}
		st.Config.ExcludedIDs = len(opts.Exclude)
	}
	files, err := entriesFiles(ctx, store, *input)
	if err != nil {
		return err
	}
	st.Config.Inputs = files
	entries, err := readEntries(ctx, store, files)
	if err != nil {
		return err
	}
	sel := selection.SelectPDB(entries, opts)
	if err := selectedDuplicates(sel); err != nil {
		return err
	}
	st.ElapsedSeconds = time.Since(start).Seconds()
	if err := selection.WritePDB(ctx, sel, *out, *shardSize, &st); err != nil {
		return err
	}
	fmt.Printf("select --pdb: %d entries in, %d selected (est_residues %d)\n", st.RowsIn, st.RowsSelected, st.EstResidues)
	for _, f := range st.Funnel {
		fmt.Printf("  %-22s %9d\n", f.Filter, f.Rows)
	}
	fmt.Printf("select --pdb: generation manifest in %d shards under %s; stats in %s\n",
		len(st.Shards), filepath.Join(*out, selection.PDBManifestDir), filepath.Join(*out, selection.PDBStatsFile))
	return nil
}

func columnNames(cols []format.Column) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

// entriesFiles expands --input: a folder means its *.parquet files, else a
// glob or a file.
func entriesFiles(ctx context.Context, store blob.Store, input string) ([]string, error) {
	if fi, err := os.Stat(input); err == nil && fi.IsDir() {
		input = filepath.Join(input, "*.parquet")
	}
	files, err := store.List(ctx, input)
	if err != nil {
		return nil, fmt.Errorf("--input %s: %w", input, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--input %s matches no file", input)
	}
	return files, nil
}

// readEntries reads every row of the entries tables, in file and row
// order; a row that is not an entries-table row is an error naming the
// file and the row.
func readEntries(ctx context.Context, store blob.Store, files []string) ([]pdbheader.Entry, error) {
	cols := columnNames(pdbheader.Columns())
	var entries []pdbheader.Entry
	for _, f := range files {
		err := manifest.ReadFile(ctx, store, f, nil, cols, func(r *manifest.Rows) error {
			for i, v := range r.Values {
				e, err := pdbheader.FromRow(r.Columns, v)
				if err != nil {
					return fmt.Errorf("entries table %s row %d: %w", f, r.First+int64(i), err)
				}
				entries = append(entries, e)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return entries, nil
}

// selectedDuplicates refuses a selection in which two selected entries
// share a pdb_id (one entry scanned from two files, e.g. 1abc.cif and
// 1abc.cif.gz): the generation manifest would hold the id twice, which run
// refuses. The error wraps planner.ErrDuplicateID and names both files.
func selectedDuplicates(sel *selection.PDBSelection) error {
	first := map[string]int{}
	counted := map[string]bool{}
	var msg string
	for i, t := range sel.Tasks {
		j, dup := first[t.PDBID]
		if !dup {
			first[t.PDBID] = i
			continue
		}
		if len(counted) < 5 && !counted[t.PDBID] {
			msg += fmt.Sprintf("\n  pdb_id %q: %s and %s", t.PDBID, sel.Tasks[j].Path, t.Path)
		}
		counted[t.PDBID] = true
	}
	if len(counted) == 0 {
		return nil
	}
	return derrors.Permanent(fmt.Errorf("%w: %d selected pdb_id(s) come from more than one file (the generation manifest would hold them twice):%s\nscan each entry once (remove the extra files from the scan's input)",
		planner.ErrDuplicateID, len(counted), msg))
}
