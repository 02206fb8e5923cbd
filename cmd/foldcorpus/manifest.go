package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/filelist"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/planner"
)

func runManifest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("manifest", flag.ContinueOnError)
	out := fs.String("out", "", "output manifest parquet (a path, file:// or gs:// URI; create-only)")
	idRule := fs.String("id", string(filelist.IDStem), "entry id rule: stem or pdb (see above)")
	rgRows := fs.Int("row-group-rows", 1000, "rows per parquet row group (run --row-groups-per-shard N splits on them)")
	allowDup := fs.Bool("allow-duplicate-ids", false, "write rows that share an entry_id (run then needs --allow-duplicate-ids too)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: foldcorpus manifest 'PATTERN' [PATTERN...] --out m.parquet [flags]

Lists structure files (mmCIF or PDB format, plain or gzip) without reading
them and writes the manifest run takes: one row per file, columns entry_id
and gcs_uri (the file's absolute path, file:// or gs:// URI), in URI order.
PATTERN is a path, file:// or gs:// glob; quote it. Each element is a glob
(*, ?, [...]); an element ** matches any number of folders: the RCSB
mirror's divided layout is 'DIR/**/*.cif.gz' (or 'DIR/*/*.cif.gz').

entry_id comes from the file name (the last element):
  --id stem  the name without a final .gz and then its last extension, case
             kept, as the AFDB pipelines name entries (Path.stem):
             AF-P69905-F1-model_v4.cif.gz -> AF-P69905-F1-model_v4 (default)
  --id pdb   exp222's scan_metadata rule: the name up to its first dot,
             lower-cased: ab/1ABC.cif.gz -> 1abc (what scan writes as pdb_id)
Two files with one id (or one file listed twice) are refused as run refuses
duplicate ids, naming both.

flags:
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	rule, err := filelist.ParseIDRule(*idRule)
	if err != nil {
		return &exitError{2, err}
	}
	if fs.NArg() == 0 || *out == "" {
		return &exitError{2, errors.New("need at least one PATTERN and --out (see `foldcorpus manifest -h`)")}
	}
	store := cliStores()
	defer store.Close()
	rows, err := listManifest(ctx, store, fs.Args(), rule, *allowDup)
	if err != nil {
		return err
	}
	data, err := manifest.Encode(manifestColumns(), rows, *rgRows)
	if err != nil {
		return err
	}
	if err := store.Create(ctx, *out, data); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	fmt.Fprintf(os.Stderr, "manifest: %d files -> %s (entry_id rule %s)\n", len(rows), *out, rule)
	return nil
}

func manifestColumns() []format.Column {
	return []format.Column{{Name: manifest.EntryIDColumn, Type: format.String}, {Name: manifest.DefaultURIColumn, Type: format.String}}
}

// listManifest expands the patterns and returns the manifest rows
// (entry_id, gcs_uri) in URI order; local paths are made absolute. Ids
// given twice are a *planner.DuplicateError (as run's planner reports
// them: both places, up to 5, and the count), unless allowDup.
func listManifest(ctx context.Context, store blob.Store, patterns []string, rule filelist.IDRule, allowDup bool) ([][]any, error) {
	var uris []string
	for _, p := range patterns {
		if blob.Scheme(p) == "" {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			p = filepath.ToSlash(abs)
		}
		got, err := filelist.Expand(ctx, store, p)
		if err != nil {
			return nil, err
		}
		uris = append(uris, got...)
	}
	// one stable order whatever the pattern order
	sort.Strings(uris)
	rows := make([][]any, len(uris))
	first := make(map[string]int, len(uris))
	de := &planner.DuplicateError{}
	counted := map[string]bool{}
	for i, u := range uris {
		id, err := filelist.EntryID(rule, u)
		if err != nil {
			return nil, err
		}
		rows[i] = []any{id, u}
		if j, dup := first[id]; dup {
			if !counted[id] {
				counted[id] = true
				de.Count++
			}
			if len(de.Dups) < 5 {
				de.Dups = append(de.Dups, planner.Duplicate{EntryID: id,
					First: planner.IDPlace{File: uris[j], Row: int64(j)}, Again: planner.IDPlace{File: u, Row: int64(i)}})
			}
			continue
		}
		first[id] = i
	}
	if de.Count > 0 && !allowDup {
		return nil, fmt.Errorf("manifest rows (file, row): %w", de)
	}
	return rows, nil
}
