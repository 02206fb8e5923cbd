package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/dedup"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

func runDedup(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("dedup", flag.ContinueOnError)
	out := fs.String("out", "", "output folder (path, file:// or gs:// prefix); create-only")
	maxPer := fs.Int("max-per-cluster", 1, "documents kept per group (1: one per cluster composition)")
	subset := fs.String("subset", "all", "rows drawn from: all (monomers and multimers), monomers or multimers")
	seed := fs.Uint64("seed", 222, "seed of the output shuffle (CPython random.Random)")
	rowsPerShard := fs.Int("rows-per-shard", 20000, "rows per output shard")
	inPrefix := fs.String("input-prefix", "part", "RUN_OUT's shard name prefix (the run's --prefix): RUN_OUT/PREFIX-*-of-*.parquet")
	prefix := fs.String("prefix", "", "output shard name prefix (default: deduped, or deduped_monomers / deduped_multimers)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `usage: foldcorpus dedup RUN_OUT|GLOB --out DIR [--max-per-cluster N] [--subset monomers] [flags]

MarinFold exp222's build_deduped: from a run's document shards (columns
entry_id, subset monomer|multimer, cluster_ids, resolved_seq_sha1,
resolution, seq_len; every column is kept), one representative (or N) per
group: a monomer's 40%% cluster, a multimer's sorted tuple of its chains'
clusters, or, where a chain has no cluster, the chain count and the exact
resolved-sequence hash. Best resolution first (none reported last), then
most residues, then entry_id. Groups are read monomer rows first, then
multimer rows, in shard and row order; the kept rows are shuffled with
--seed. The monomers-only cut holds exactly the monomers of the mixed cut.
Writes OUT/PREFIX-NNNNN-of-NNNNN.parquet, OUT/%s (per output row: its input
file and row, its group) and OUT/%s (rows in, groups, kept, dropped as
duplicates).

flags:
`, dedup.RowsFile, dedup.StatsFile)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return &exitError{2, err}
	}
	if fs.NArg() != 1 || *out == "" {
		return &exitError{2, errors.New("want one RUN_OUT (or a quoted glob of shards) and --out DIR (see `foldcorpus dedup -h`)")}
	}
	var subsets []string
	switch *subset {
	case "all":
		subsets = []string{"monomer", "multimer"}
	case "monomers", "multimers":
		subsets = []string{strings.TrimSuffix(*subset, "s")}
	default:
		return &exitError{2, fmt.Errorf("--subset %q: want all, monomers or multimers", *subset)}
	}
	if *prefix == "" {
		*prefix = "deduped"
		if *subset != "all" {
			*prefix += "_" + *subset
		}
	}
	src := fs.Arg(0)
	if !strings.ContainsAny(src, "*?[") {
		src = strings.TrimRight(src, "/") + "/" + *inPrefix + "-*-of-*.parquet"
	}
	if blob.IsLocal(src) {
		// the stats name the inputs absolute: verify finds them from anywhere
		p, err := localblob.Path(src)
		if err != nil {
			return &exitError{2, err}
		}
		if src, err = filepath.Abs(p); err != nil {
			return err
		}
	}
	store := cliStores()
	defer store.Close()
	inputs, err := store.List(ctx, src)
	if err != nil {
		return err
	}
	if len(inputs) == 0 {
		return fmt.Errorf("no run shards match %s", src)
	}
	st, err := dedup.Cut(ctx, store, dedup.CutOptions{Inputs: inputs, Out: *out, Subsets: subsets, MaxPerCluster: *maxPer,
		Seed: *seed, RowsPerShard: *rowsPerShard, Prefix: *prefix})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "dedup: %d rows in %d shards; %d of other subsets; %d groups; kept %d (%v), dropped %d as duplicates; %d shards under %s\n",
		st.RowsIn, len(inputs), st.RowsOtherSubset, st.Groups, st.DocsOut, st.DocsBySubset, st.DroppedDuplicates, len(st.Shards), *out)
	return nil
}
