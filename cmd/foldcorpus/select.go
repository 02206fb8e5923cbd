package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/selection"
)

func selectFlags(name string, opts *selection.Options) *flag.FlagSet {
	fset := flag.NewFlagSet(name, flag.ContinueOnError)
	fset.IntVar(&opts.MinClusterSize, "min-cluster-size", opts.MinClusterSize, "drop structural clusters with fewer usable members")
	fset.IntVar(&opts.NumRounds, "num-rounds", opts.NumRounds, "keep at most this many members (rounds) per cluster")
	fset.IntVar(&opts.MinSeqLen, "min-seq-len", opts.MinSeqLen, "smallest usable seq_len (inclusive)")
	fset.IntVar(&opts.MaxSeqLen, "max-seq-len", opts.MaxSeqLen, "largest usable seq_len (inclusive)")
	fset.IntVar(&opts.ShardSize, "shard-size", opts.ShardSize, "rows per output manifest shard")
	fset.IntVar(&opts.Threads, "threads", opts.Threads, "DuckDB threads (0: one per CPU)")
	fset.StringVar(&opts.MemoryLimit, "memory-limit", opts.MemoryLimit, "DuckDB memory limit, e.g. 4GB; spills to disk beyond it (default: 80% of RAM)")
	return fset
}

func runSelect(ctx context.Context, args []string) error {
	if isPDBSelect(args) { // the PDB mode: select_pdb.go
		return runSelectPDB(ctx, args)
	}
	opts := selection.DefaultOptions()
	fset := selectFlags("select", &opts)
	input := fset.String("input", "", "manifest parquet: a file, a glob (quote it), or a folder (all *.parquet below it)")
	fset.StringVar(&opts.OutDir, "out", "", "output folder (must not exist or be empty): <out>/<split>/shard_NNNNN.parquet + "+selection.StatsFile)
	fset.BoolVar(&opts.AllowDuplicateIDs, "allow-duplicate-ids", false, "accept input rows that share an entry_id (by default select refuses them, naming the file and row of both copies)")
	fset.Usage = func() {
		fmt.Fprintf(fset.Output(), `usage: foldcorpus select --input GLOB|DIR --out DIR [flags]

Stage A: keeps, per structural cluster (struct_cluster_id) of at least
--min-cluster-size usable rows (seq_len in [--min-seq-len, --max-seq-len]),
its --num-rounds best rows by global_plddt, and writes them as the generation
manifest OUT/SPLIT/shard_NNNNN.parquet plus %s. Metadata only: no
structure is read.

required columns: %s
passed through when present: %s

flags:
`, selection.StatsFile, strings.Join(selection.RequiredColumns(), ", "), strings.Join(selection.OptionalColumns(), ", "))
		fset.PrintDefaults()
	}
	if err := parseFlags(fset, args); err != nil {
		return &exitError{2, err}
	}
	if err := extraArgs("--input", fset.Args()); err != nil {
		return err
	}
	if *input == "" || opts.OutDir == "" {
		return &exitError{2, fmt.Errorf("need --input GLOB|DIR and --out DIR (see `foldcorpus select -h`)")}
	}
	files, err := expandInput(*input)
	if err != nil {
		return err
	}
	opts.Inputs = files
	st, err := selection.Select(ctx, opts)
	if err != nil {
		return err
	}
	printSelectStats(st, opts.OutDir)
	for _, w := range st.Warnings {
		fmt.Fprintf(os.Stderr, "select: warning: %s\n", w)
	}
	return nil
}

// expandInput turns --input into a sorted list of parquet files: a folder
// means every *.parquet below it, anything else is a glob.
func expandInput(input string) ([]string, error) {
	if strings.Contains(input, "://") {
		return nil, fmt.Errorf("--input %s: select reads local files; copy the manifest down first (gcloud storage cp -r)", input)
	}
	var files []string
	if fi, err := os.Stat(input); err == nil && fi.IsDir() {
		err := filepath.WalkDir(input, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	} else {
		files, err = filepath.Glob(input)
		if err != nil {
			return nil, fmt.Errorf("--input %s: %w", input, err)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--input %s matches no parquet files", input)
	}
	sort.Strings(files)
	return files, nil
}

func printSelectStats(st *selection.Stats, out string) {
	fmt.Printf("select: %d rows in, %d usable; clusters: %d usable, %d kept, %d dropped (< %d members)\n",
		st.RowsIn, st.RowsUsable, st.ClustersUsable, st.ClustersKept, st.ClustersDropped, st.Config.MinClusterSize)
	for _, sp := range st.Splits {
		fmt.Printf("  %-8s %9d rows %8d clusters:", sp.Split, sp.Rows, sp.Clusters)
		for _, r := range sp.Rounds {
			fmt.Printf(" r%d=%d", r.Round, r.Rows)
		}
		fmt.Println()
	}
	fmt.Printf("select: %d rows in %d shards under %s (%.2fs); stats in %s\n",
		st.RowsSelected, len(st.Shards), out, st.ElapsedSeconds, filepath.Join(out, selection.StatsFile))
}
