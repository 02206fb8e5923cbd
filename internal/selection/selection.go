// Package selection is Stage A of a corpus build: a metadata-only selection
// that reads a few small columns of a protein-structure manifest (never
// cif_content), assigns each structure a round by its rank in its structural
// cluster, and writes the generation manifest that `foldcorpus run` consumes.
// Embedded DuckDB does the work, so a 24M-row manifest fits one machine.
//
// The rules follow exp53's selection.py:
//   - keep rows with MinSeqLen <= seq_len <= MaxSeqLen and a non-null
//     struct_cluster_id ("usable" rows);
//   - within each structural cluster rank the usable members by global_plddt
//     descending (nulls last), ties by entry_id ascending; round = rank - 1;
//   - keep clusters with at least MinClusterSize usable members, and rows
//     with round < NumRounds;
//   - write, for each split in byte-wise alphabetical order and each round
//     from the highest down to 0, the rows ordered by struct_cluster_id (then
//     entry_id), in shards of ShardSize rows named
//     <out>/<split>/shard_{i:05d}.parquet, the index running within a split
//     and no shard mixing two rounds;
//   - write <out>/selection_stats.json with the counts.
//
// The manifest is read twice: once for the ranking, with only the key
// columns (entry_id, struct_cluster_id, global_plddt, seq_len) in DuckDB's
// window, and once for the selected rows' passthrough columns, joined back
// by (file, row number). That halves peak memory against one pass carrying
// every column through the window (about 420 vs 815 MB at 2M rows), for
// the same output bytes.
package selection

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// StatsFile is the name of the stats JSON written beside the split folders.
const StatsFile = "selection_stats.json"

// Options configures Select. Start from DefaultOptions.
type Options struct {
	// Inputs are the manifest parquet files (local paths), read in this order.
	Inputs []string
	// OutDir receives <split>/shard_NNNNN.parquet and selection_stats.json.
	// It must not exist or be empty.
	OutDir string

	MinClusterSize int // clusters with fewer usable members are dropped (3)
	NumRounds      int // rows with round >= NumRounds are dropped (5)
	MinSeqLen      int // smallest usable seq_len, inclusive (2)
	MaxSeqLen      int // largest usable seq_len, inclusive (2000)
	ShardSize      int // rows per output shard (2000)

	// Threads is DuckDB's worker thread count; 0 means one per CPU.
	Threads int
	// MemoryLimit is DuckDB's memory_limit ("4GB"); DuckDB spills to a
	// temporary folder inside the staging directory beyond it. Empty means
	// DuckDB's default (80% of RAM).
	MemoryLimit string

	// AllowDuplicateIDs accepts input rows that share an entry_id (each
	// copy may be selected). By default Select refuses them, naming the
	// file and row of two copies (ErrDuplicateID).
	AllowDuplicateIDs bool
}

// DefaultOptions returns the thresholds of the reference selection.
func DefaultOptions() Options {
	return Options{MinClusterSize: 3, NumRounds: 5, MinSeqLen: 2, MaxSeqLen: 2000, ShardSize: 2000}
}

// Stats describes one selection. Everything but ElapsedSeconds and
// PhaseSeconds is a function of the input and the options.
type Stats struct {
	Config struct {
		Inputs         []string `json:"inputs"`
		MinClusterSize int      `json:"min_cluster_size"`
		NumRounds      int      `json:"num_rounds"`
		MinSeqLen      int      `json:"min_seq_len"`
		MaxSeqLen      int      `json:"max_seq_len"`
		ShardSize      int      `json:"shard_size"`
	} `json:"config"`
	Columns         []string     `json:"columns"` // output columns, in order
	RowsIn          int64        `json:"rows_in"`
	RowsUsable      int64        `json:"rows_usable"` // seq_len in bounds and a cluster
	ClustersUsable  int64        `json:"clusters_usable"`
	ClustersKept    int64        `json:"clusters_kept"`
	ClustersDropped int64        `json:"clusters_dropped"` // fewer than MinClusterSize usable members
	RowsSelected    int64        `json:"rows_selected"`
	Splits          []SplitStats `json:"splits"`
	Shards          []Shard      `json:"shards"`
	// ClustersAcrossSplits counts the struct_cluster_ids whose selected
	// rows are in more than one split (a train/evaluation leak), the first
	// few named in ClusterSplitExamples; Warnings says so for people.
	ClustersAcrossSplits int64           `json:"clusters_across_splits"`
	ClusterSplitExamples []ClusterSplits `json:"cluster_split_examples,omitempty"`
	Warnings             []string        `json:"warnings,omitempty"`
	ElapsedSeconds       float64         `json:"elapsed_seconds"`
	// PhaseSeconds splits the time: schema (footers), rank (pass 1),
	// select (pass 2), write (the shards).
	PhaseSeconds map[string]float64 `json:"phase_seconds"`
}

// SplitStats counts one split's selected rows.
type SplitStats struct {
	Split    string       `json:"split"`
	Rows     int64        `json:"rows"`
	Clusters int64        `json:"clusters"`
	Rounds   []RoundStats `json:"rounds"` // highest round first, as written
}

// RoundStats counts one round of one split.
type RoundStats struct {
	Round  int   `json:"round"`
	Rows   int64 `json:"rows"`
	Shards int   `json:"shards"`
}

// Shard is one written manifest shard.
type Shard struct {
	Split string `json:"split"`
	Round int    `json:"round"`
	Index int    `json:"index"`
	Rows  int64  `json:"rows"`
	Path  string `json:"path"` // relative to OutDir

	chunk int // index of the shard within its (split, round)
}

var splitName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func (o Options) validate() error {
	switch {
	case len(o.Inputs) == 0:
		return errors.New("no input files")
	case o.OutDir == "":
		return errors.New("no output directory")
	case o.MinClusterSize < 1, o.NumRounds < 1, o.ShardSize < 1:
		return fmt.Errorf("min cluster size, num rounds and shard size must be >= 1 (got %d, %d, %d)", o.MinClusterSize, o.NumRounds, o.ShardSize)
	case o.MinSeqLen > o.MaxSeqLen:
		return fmt.Errorf("min seq len %d > max seq len %d", o.MinSeqLen, o.MaxSeqLen)
	case o.Threads < 0:
		return fmt.Errorf("threads %d < 0", o.Threads)
	}
	for _, in := range o.Inputs {
		if strings.Contains(in, "://") {
			return fmt.Errorf("input %s: only local files are read (copy the manifest down first, e.g. with `gcloud storage cp`)", in)
		}
	}
	return nil
}

// Select runs the selection and writes its output under opts.OutDir.
//
// Output appears atomically: everything is written into a hidden staging
// folder beside OutDir and renamed into place at the end, so OutDir either
// holds a complete selection or nothing. A run that fails or is cancelled
// removes its staging folder. Rerunning with the same inputs and options
// writes the same shard bytes (only elapsed_seconds in the stats differs);
// because OutDir must not exist or be empty, rerunning into the same folder
// fails with derrors.ErrExists instead of mixing two selections. Two
// concurrent calls must use different OutDirs.
//
// Bad input (no rows, missing columns, wrong types, files that disagree,
// null entry_id or split, an entry_id in two input rows (ErrDuplicateID,
// naming both; see Options.AllowDuplicateIDs), a split
// unfit for a folder name) is an error wrapping derrors.ErrPermanent that
// names the file or the value.
func Select(ctx context.Context, opts Options) (st *Stats, err error) {
	defer derrors.Wrap(&err, "selection.Select(%s)", opts.OutDir)
	start := time.Now()
	if err := opts.validate(); err != nil {
		return nil, derrors.Permanent(err)
	}
	if err := driverReady(); err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(opts.OutDir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("output directory %s is not empty: %w", opts.OutDir, derrors.ErrExists)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	parent, base := filepath.Split(filepath.Clean(opts.OutDir))
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	staging, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(staging)
		}
	}()

	db, err := openDB(ctx, opts, filepath.Join(staging, ".spill"))
	if err != nil {
		return nil, err
	}
	defer db.Close()

	st, err = run(ctx, db, opts, staging)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(filepath.Join(staging, ".spill")); err != nil {
		return nil, err
	}
	st.ElapsedSeconds = time.Since(start).Seconds()
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(staging, StatsFile), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := os.Chmod(staging, 0o755); err != nil { // MkdirTemp made it 0700
		return nil, err
	}
	os.Remove(opts.OutDir) // an empty OutDir is replaced; a non-empty one makes Rename fail
	if err := os.Rename(staging, opts.OutDir); err != nil {
		return nil, err
	}
	return st, nil
}

func openDB(ctx context.Context, opts Options, spill string) (*sql.DB, error) {
	if err := driverReady(); err != nil {
		return nil, err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database, one session
	threads := opts.Threads
	if threads == 0 {
		threads = runtime.NumCPU()
	}
	settings := []string{
		fmt.Sprintf("SET threads = %d", threads),
		"SET preserve_insertion_order = true",
		"SET autoinstall_known_extensions = false",
		"SET autoload_known_extensions = false",
	}
	if spill != "" {
		settings = append(settings, "SET temp_directory = "+quote(spill))
	}
	if opts.MemoryLimit != "" {
		settings = append(settings, "SET memory_limit = "+quote(opts.MemoryLimit))
	}
	for _, s := range settings {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", s, err)
		}
	}
	return db, nil
}

// count runs a query returning one integer.
func count(ctx context.Context, db *sql.DB, q string) (int64, error) {
	var n sql.NullInt64
	err := db.QueryRowContext(ctx, q).Scan(&n)
	return n.Int64, err
}

func run(ctx context.Context, db *sql.DB, opts Options, staging string) (*Stats, error) {
	st := &Stats{PhaseSeconds: map[string]float64{}}
	t := time.Now()
	phase := func(name string) {
		st.PhaseSeconds[name] = time.Since(t).Seconds()
		t = time.Now()
	}
	cols, casts, err := plan(ctx, db, opts.Inputs)
	if err != nil {
		return nil, err
	}
	phase("schema")
	st.Config.Inputs = opts.Inputs
	st.Config.MinClusterSize, st.Config.NumRounds = opts.MinClusterSize, opts.NumRounds
	st.Config.MinSeqLen, st.Config.MaxSeqLen, st.Config.ShardSize = opts.MinSeqLen, opts.MaxSeqLen, opts.ShardSize

	files := make([]string, len(opts.Inputs))
	for i, f := range opts.Inputs {
		files[i] = quote(f)
	}
	src := "read_parquet([" + strings.Join(files, ", ") + "])"
	var sel, out []string
	for _, c := range cols {
		sel = append(sel, fmt.Sprintf("CAST(s.%s AS %s) AS %s", ident(c.name), casts[c.name], ident(c.name)))
		out = append(out, ident(c.name))
		st.Columns = append(st.Columns, c.name)
	}
	st.Columns = append(st.Columns, "round")
	outCols := strings.Join(out, ", ") + `, "round"`

	if st.RowsIn, err = count(ctx, db, "SELECT count(*) FROM "+src); err != nil {
		return nil, derrors.Permanent(fmt.Errorf("reading %d manifest files: %w", len(files), err))
	}
	if st.RowsIn == 0 {
		return nil, derrors.Permanent(fmt.Errorf("the manifest (%d files, first %s) has no rows", len(files), opts.Inputs[0]))
	}

	// Pass 1 ranks the usable rows with only the key columns, so the window
	// holds ~50 bytes a row, not the passthrough columns; rows are named by
	// (file index, row number in the file).
	q := fmt.Sprintf(`CREATE TABLE files AS
SELECT unnest(l) AS name, generate_subscripts(l, 1) AS idx FROM (SELECT [%s] AS l)`, strings.Join(files, ", "))
	if _, err := db.ExecContext(ctx, q); err != nil {
		return nil, fmt.Errorf("listing files: %w", err)
	}
	srcRows := "read_parquet([" + strings.Join(files, ", ") + "], filename = true, file_row_number = true) AS s JOIN files f ON f.name = s.filename"
	if !opts.AllowDuplicateIDs {
		if err := checkDuplicateIDs(ctx, db, srcRows); err != nil {
			return nil, err
		}
		phase("duplicates")
	}
	q = fmt.Sprintf(`CREATE TABLE ranked AS
SELECT f.idx AS file_idx, s.file_row_number AS file_row,
  CAST(row_number() OVER (PARTITION BY s.struct_cluster_id
                          ORDER BY s.global_plddt DESC NULLS LAST, s.entry_id ASC NULLS LAST) - 1 AS BIGINT) AS "round",
  count(*) OVER (PARTITION BY s.struct_cluster_id) AS cluster_size
FROM %s
WHERE s.seq_len BETWEEN %d AND %d AND s.struct_cluster_id IS NOT NULL`,
		srcRows, opts.MinSeqLen, opts.MaxSeqLen)
	if _, err := db.ExecContext(ctx, q); err != nil {
		return nil, fmt.Errorf("ranking: %w", err)
	}
	row := db.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*),
  count(*) FILTER (WHERE "round" = 0),
  count(*) FILTER (WHERE "round" = 0 AND cluster_size >= %d)
FROM ranked`, opts.MinClusterSize))
	if err := row.Scan(&st.RowsUsable, &st.ClustersUsable, &st.ClustersKept); err != nil {
		return nil, fmt.Errorf("counting clusters: %w", err)
	}
	st.ClustersDropped = st.ClustersUsable - st.ClustersKept
	phase("rank")
	q = fmt.Sprintf(`CREATE TABLE keys AS SELECT file_idx, file_row, "round" FROM ranked
WHERE cluster_size >= %d AND "round" < %d`, opts.MinClusterSize, opts.NumRounds)
	if _, err := db.ExecContext(ctx, q); err != nil {
		return nil, fmt.Errorf("selecting: %w", err)
	}

	// Pass 2 reads the selected rows' columns and stores them in output
	// order with their chunk number within (split, round), so each shard's
	// query reads a narrow range.
	q = fmt.Sprintf(`CREATE TABLE selected AS
SELECT *, (row_number() OVER (PARTITION BY split, "round" ORDER BY struct_cluster_id, entry_id) - 1) // %d AS chunk
FROM (SELECT %s, k."round"
      FROM %s JOIN keys k ON k.file_idx = f.idx AND k.file_row = s.file_row_number)
ORDER BY split, "round" DESC, struct_cluster_id, entry_id`,
		opts.ShardSize, strings.Join(sel, ", "), srcRows)
	if _, err := db.ExecContext(ctx, q); err != nil {
		return nil, fmt.Errorf("selecting: %w", err)
	}
	if _, err := db.ExecContext(ctx, "DROP TABLE ranked; DROP TABLE keys"); err != nil {
		return nil, err
	}
	if err := checkSelected(ctx, db, opts.AllowDuplicateIDs); err != nil {
		return nil, err
	}
	if err := summarize(ctx, db, opts, st); err != nil {
		return nil, err
	}
	if err := checkClusterSplits(ctx, db, st); err != nil {
		return nil, err
	}
	phase("select")
	for _, sh := range st.Shards {
		if err := writeShard(ctx, db, staging, outCols, sh); err != nil {
			return nil, err
		}
	}
	phase("write")
	return st, nil
}

// checkSelected rejects selections that cannot be written as documented.
func checkSelected(ctx context.Context, db *sql.DB, allowDuplicateIDs bool) error {
	n, err := count(ctx, db, "SELECT count(*) FROM selected WHERE entry_id IS NULL OR split IS NULL")
	if err != nil {
		return err
	}
	if n > 0 {
		return derrors.Permanent(fmt.Errorf("%d selected rows have a null entry_id or split", n))
	}
	if allowDuplicateIDs {
		return nil
	}
	var dup string
	err = db.QueryRowContext(ctx, "SELECT entry_id FROM selected GROUP BY entry_id HAVING count(*) > 1 ORDER BY entry_id LIMIT 1").Scan(&dup)
	switch {
	case err == nil:
		return derrors.Permanent(fmt.Errorf("entry_id %q appears more than once among the selected rows", dup))
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	return nil
}

// summarize fills the per-split and per-round counts and the shard list.
func summarize(ctx context.Context, db *sql.DB, opts Options, st *Stats) error {
	rows, err := db.QueryContext(ctx, `SELECT split, "round", count(*), count(DISTINCT struct_cluster_id)
FROM selected GROUP BY split, "round" ORDER BY split, "round" DESC`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var split string
		var round int
		var n, clusters int64
		if err := rows.Scan(&split, &round, &n, &clusters); err != nil {
			return err
		}
		if !splitName.MatchString(split) {
			return derrors.Permanent(fmt.Errorf("split %q cannot name an output folder (want letters, digits, '.', '_', '-')", split))
		}
		if len(st.Splits) == 0 || st.Splits[len(st.Splits)-1].Split != split {
			st.Splits = append(st.Splits, SplitStats{Split: split})
		}
		sp := &st.Splits[len(st.Splits)-1]
		shards := int((n + int64(opts.ShardSize) - 1) / int64(opts.ShardSize))
		sp.Rows += n
		sp.Clusters = max(sp.Clusters, clusters) // round 0 has every kept cluster
		sp.Rounds = append(sp.Rounds, RoundStats{Round: round, Rows: n, Shards: shards})
		st.RowsSelected += n
		next := 0
		if k := len(st.Shards); k > 0 && st.Shards[k-1].Split == split {
			next = st.Shards[k-1].Index + 1
		}
		for i := range shards {
			r := min(int64(opts.ShardSize), n-int64(i*opts.ShardSize))
			st.Shards = append(st.Shards, Shard{
				Split: split, Round: round, Index: next + i, Rows: r,
				Path:  filepath.ToSlash(filepath.Join(split, fmt.Sprintf("shard_%05d.parquet", next+i))),
				chunk: i,
			})
		}
	}
	return cmp.Or(rows.Err(), rows.Close())
}

// writeShard writes one shard with DuckDB's parquet writer: zstd, one row
// group, columns of plain types (VARCHAR, BIGINT, DOUBLE), rows in output
// order.
func writeShard(ctx context.Context, db *sql.DB, staging, outCols string, sh Shard) error {
	path := filepath.Join(staging, filepath.FromSlash(sh.Path))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	q := fmt.Sprintf(`COPY (SELECT %s FROM selected WHERE split = %s AND "round" = %d AND chunk = %d
  ORDER BY struct_cluster_id, entry_id)
TO %s (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE %d)`,
		outCols, quote(sh.Split), sh.Round, sh.chunk, quote(path), max(sh.Rows, 1))
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("writing %s: %w", sh.Path, err)
	}
	return nil
}
