package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/filelist"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
)

// maxScanErrorsShown caps the scan errors printed; all are in the table.
const maxScanErrorsShown = 100

func runScan(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("scan", flag.ContinueOnError)
	man := fs.String("manifest", "", "manifest parquet glob (path, file:// or gs://): the files are its --uri-column")
	input := fs.String("input", "", "structure files glob instead of a manifest ('DIR/**/*.cif.gz'; see foldcorpus manifest -h)")
	uriCol := fs.String("uri-column", manifest.DefaultURIColumn, "manifest column of file URIs")
	out := fs.String("out", "", "entries table parquet to write (path, file:// or gs://; create-only)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "files read and scanned at once")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: foldcorpus scan (--manifest GLOB | --input GLOB) --out entries.parquet [flags]

Header scan (MarinFold exp222's scan_metadata): one row per file with
exp222's 15 columns, same names and rules: pdb_id (the file name up to its
first dot, lower-cased), path, release_date (revision ordinal 1),
deposition_date, method, resolution and resolution_source (refine, then
em_3d_reconstruction, then reflns), n_protein_entities,
n_protein_asym_chains, protein_entity_ids / _lengths / strand_ids
(polypeptide(L) entities), n_assembly1_protein_asyms and
n_assembly1_protein_chains (assembly 1's protein chains as built), error.
Only header categories are kept: _atom_site is tokenized and counted, no
atom is built. PDB-format files are read from their header records
(HEADER, EXPDTA, REMARK 2/3/350, SEQRES) as gemmi reads them; they have no
release date (docs/pdb.md section 2). A file that cannot be read or parsed
is a row with error set; they are counted and named at the end. Rows are in
input order. Next: foldcorpus select --pdb --input entries.parquet.

flags:
`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if err := extraArgs("--input", fs.Args()); err != nil {
		return err
	}
	if (*man == "") == (*input == "") || *out == "" {
		return &exitError{2, errors.New("need one of --manifest GLOB and --input GLOB, and --out (see `foldcorpus scan -h`)")}
	}
	store := cliStores()
	defer store.Close()
	var uris []string
	var err error
	if *man != "" {
		uris, err = manifestURIs(ctx, store, *man, *uriCol)
	} else {
		uris, err = filelist.Expand(ctx, store, *input)
	}
	if err != nil {
		return err
	}
	start := time.Now()
	cpu0 := processCPU()
	prog := progressLine{w: os.Stderr, tty: isTerminal(os.Stderr)}
	entries, err := pdbheader.ScanAll(ctx, store, uris, pdbheader.Options{Workers: *workers, Progress: func(done int64) {
		prog.show(done == int64(len(uris)), func() string { return fmt.Sprintf("scan: %d/%d files", done, len(uris)) })
	}})
	prog.finish()
	if err != nil {
		return err
	}
	wall, cpu := time.Since(start), processCPU()-cpu0
	rows := make([][]any, len(entries))
	var failed []pdbheader.Entry
	for i, e := range entries {
		rows[i] = e.Row()
		if e.Error != nil {
			failed = append(failed, e)
		}
	}
	data, err := manifest.Encode(pdbheader.Columns(), rows, 20000)
	if err != nil {
		return err
	}
	if err := store.Create(ctx, *out, data); err != nil {
		return fmt.Errorf("writing %s: %w", *out, err)
	}
	fmt.Fprintf(os.Stderr, "scan: %d files, %d read, %d unreadable -> %s in %s (%.2f ms CPU per file, %d workers)\n",
		len(entries), len(entries)-len(failed), len(failed), *out, wall.Round(time.Millisecond),
		cpu.Seconds()*1000/float64(max(1, len(entries))), *workers)
	for i, e := range failed {
		if i == maxScanErrorsShown {
			fmt.Fprintf(os.Stderr, "  ... and %d more (every one is in the error column)\n", len(failed)-i)
			break
		}
		fmt.Fprintf(os.Stderr, "  UNREADABLE %s: %s\n", e.Path, *e.Error)
	}
	return nil
}

// manifestURIs reads the URI column of every manifest file matching glob,
// in file and row order; a null URI is an error naming its file and row.
func manifestURIs(ctx context.Context, store blob.Store, glob, col string) ([]string, error) {
	files, err := store.List(ctx, glob)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--manifest %s matches no file", glob)
	}
	var uris []string
	for _, f := range files {
		err := manifest.ReadFile(ctx, store, f, nil, []string{col}, func(r *manifest.Rows) error {
			for i, v := range r.Values {
				s, ok := v[0].(string)
				if !ok || s == "" {
					return fmt.Errorf("manifest %s row %d: %s is %v, want a URI", f, r.First+int64(i), col, v[0])
				}
				uris = append(uris, s)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return uris, nil
}

// processCPU is the process's user+system CPU time so far (0 if unknown).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
