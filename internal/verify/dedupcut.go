package verify

// A dedup cut (`foldcorpus dedup RUN_OUT --out DIR`) is checked from its
// objects as a run is, against the run's document shards it was cut from
// instead of a manifest:
//
//   - the shards dedup_stats.json lists, each present once under its own
//     name (its footer: run dedup, shard i of n), nothing else in the folder
//     but dedup_stats.json and dedup_rows.parquet (the listing a run's
//     verify makes: temporary, stray and second outputs named);
//   - each shard's footer accounting balanced and agreeing with its rows;
//   - dedup_rows.parquet one row per output row (rank 0..n-1 in output
//     order), each naming an existing row of one of the cut's inputs, no
//     input row twice; the output row's entry_id and sha1 equal to its input
//     row's (only those columns, and subset, are read of the inputs);
//   - dedup_stats.json's counts recomputed: rows in (the inputs' footers),
//     rows of other subsets (their subset column), kept (the rows file and
//     the shards' rows), dropped as duplicates (the rows of the subsets cut
//     less the kept ones), groups, kept by subset, num_tokens;
//   - with Deep, every output document's sha1 recomputed.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/dedup"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/planner"
)

// Checks of a cut's findings, beside those of a run's ("identity",
// "balance", "rows", "entry_ids", "sha1", "unreadable").
const (
	CheckStats    = "stats"     // dedup_stats.json disagrees with what storage holds
	CheckRowsFile = "rows_file" // dedup_rows.parquet is missing, unreadable or inconsistent
	CheckInput    = "input"     // an input file of the cut cannot be read
	CheckInputRow = "input_row" // an output row names no existing input row, or one used twice
)

// CutOptions say which dedup cut to verify.
type CutOptions struct {
	// Out is the cut's folder or gs://BUCKET/PREFIX.
	Out string
	// Deep recomputes every output document's sha1 from its bytes.
	Deep bool
	// Concurrency bounds the files read at once (DefaultConcurrency when 0).
	Concurrency int
}

// CutReport is what VerifyCut found. Its Report holds the findings and the
// totals as for a run: Rows the input rows, Documents the rows kept,
// Filtered the others ("duplicate", "other_subset"), Shards and Files the
// cut's shards. The cut is whole when OK.
type CutReport struct {
	Report
	Cut CutAccounting `json:"cut"`
}

// CutAccounting is a cut's accounting recomputed from storage, and what its
// dedup_stats.json says (Stats).
type CutAccounting struct {
	Stats *dedup.Stats `json:"stats"`
	// InputRows are the rows of the input files (their footers);
	// SubsetRows those of the subsets cut (their subset column).
	InputRows  int64 `json:"input_rows"`
	SubsetRows int64 `json:"subset_rows"`
	// Kept are the rows of dedup_rows.parquet; Dropped = SubsetRows - Kept.
	Kept     int64            `json:"kept"`
	Dropped  int64            `json:"dropped_duplicates"`
	Groups   int              `json:"groups"`
	BySubset map[string]int64 `json:"kept_by_subset"`
	// Tokens is the sum of the shards' num_tokens column (when they have one).
	Tokens int64 `json:"num_tokens,omitempty"`
	// Matched counts the output rows compared with their input row.
	Matched int64 `json:"rows_matched"`
}

// IsCut reports whether out holds a dedup cut: its dedup_stats.json.
func IsCut(ctx context.Context, store blob.Store, out string) (bool, error) {
	_, err := store.ReadAll(ctx, planner.JoinURI(out, dedup.StatsFile))
	if errors.Is(err, derrors.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// cutVerifier holds one VerifyCut call's state.
type cutVerifier struct {
	*verifier
	st   *dedup.Stats
	rows []cutRow // by rank (output order), from dedup_rows.parquet; nil when it cannot be read
	per  int      // rows per shard (all but the last shard); 0 when unknown
	acc  *CutAccounting
	// inputsRead: every input file was read whole (its counts are exact)
	inputsRead bool
}

// cutRow is one output row: what dedup_rows.parquet says of it, and what
// its input row holds.
type cutRow struct {
	listed                 bool // the rows file has this rank
	entryID, subset, group string
	file                   string
	row                    int64
	found                  bool // its input row was read
	seenOut                bool // a shard holds it
	inID, inSHA1, inSubset string
}

// VerifyCut checks the dedup cut in opts.Out through store (which serves
// the cut and its inputs). As Verify, it returns a report of every problem
// found, and an error only when the verification could not be made (a
// listing that fails, a transient storage error, ctx; a folder without
// dedup_stats.json). Read-only.
func VerifyCut(ctx context.Context, store blob.Store, opts CutOptions) (_ *CutReport, err error) {
	defer derrors.Wrap(&err, "verify.VerifyCut(%s)", opts.Out)
	start := time.Now()
	if opts.Out == "" {
		return nil, derrors.Permanent(fmt.Errorf("no cut folder"))
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	cr := &CutReport{Report: Report{Out: opts.Out, Deep: opts.Deep, Rows: -1, Filtered: map[string]int64{},
		Missing: []Missing{}, Extra: []Extra{}, Disagrees: []Disagreement{}}}
	cr.Cut.BySubset = map[string]int64{}
	v := &verifier{store: store, opts: Options{Out: opts.Out, Deep: opts.Deep, Concurrency: opts.Concurrency}, rep: &cr.Report}
	c := &cutVerifier{verifier: v, acc: &cr.Cut}
	objs, err := v.list(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.readStats(ctx); err != nil {
		return nil, err
	}
	objs = c.ownObjects(objs)
	if c.st != nil && c.plan(objs) {
		if err := v.readFooters(ctx, objs); err != nil {
			return nil, err
		}
		v.pickRun(objs)
		v.assign(objs)
		if err := c.readRows(ctx); err != nil {
			return nil, err
		}
		if err := c.readInputs(ctx); err != nil {
			return nil, err
		}
		if err := c.checkShards(ctx); err != nil {
			return nil, err
		}
		c.checkRows()
		c.checkStats()
	}
	v.rep.BytesRead, v.rep.Reads = v.read.Load(), v.reqs.Load()
	v.sortFindings()
	v.rep.Wall = time.Since(start)
	return cr, nil
}

// add records a finding about the cut (shard -1 when it is none's).
func (c *cutVerifier) add(name string, shard int, check, format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rep.Disagrees = append(c.rep.Disagrees, Disagreement{Name: name, Shard: shard, Check: check, Detail: fmt.Sprintf(format, args...)})
}

// readStats reads dedup_stats.json; one that is missing or cannot be
// parsed is a finding (and nothing else can be checked).
func (c *cutVerifier) readStats(ctx context.Context) error {
	b, err := c.store.ReadAll(ctx, planner.JoinURI(c.opts.Out, dedup.StatsFile))
	if err := fatal(ctx, err); err != nil {
		return err
	}
	if errors.Is(err, derrors.ErrNotFound) {
		return derrors.Permanent(fmt.Errorf("no %s: not a dedup cut", dedup.StatsFile))
	}
	var st dedup.Stats
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		c.add(dedup.StatsFile, -1, CheckStats, "cannot be read: %s", derrors.Describe(err))
		return nil
	}
	if st.RowsFile == "" {
		st.RowsFile = dedup.RowsFile
	}
	c.st, c.acc.Stats = &st, &st
	c.rep.RunID = "dedup"
	return nil
}

// ownObjects drops the cut's own non-shard objects from the listing: the
// stats file (which the listing called stray) and the rows file.
func (c *cutVerifier) ownObjects(objs []*object) []*object {
	c.rep.Extra = slices.DeleteFunc(c.rep.Extra, func(e Extra) bool { return e.Name == dedup.StatsFile && e.Kind == ExtraStray })
	rowsFile := dedup.RowsFile
	if c.st != nil {
		rowsFile = c.st.RowsFile
	}
	return slices.DeleteFunc(objs, func(o *object) bool { return o.name == rowsFile })
}

// plan takes the shards from the stats' list, which must be
// PREFIX-00000-of-NNNNN.parquet ... in order; a list that is not is a
// finding, and then no shard can be checked (false).
func (c *cutVerifier) plan(objs []*object) bool {
	names := c.st.Shards
	if len(names) == 0 {
		c.add(dedup.StatsFile, -1, CheckStats, "lists no shards (a cut has at least one)")
		return false
	}
	prefix := ""
	if m := shardName.FindStringSubmatch(names[0]); m != nil {
		prefix = m[1]
	}
	for i, n := range names {
		if s, t, ok := parseName(n, prefix); !ok || s != i || t != len(names) {
			c.add(dedup.StatsFile, -1, CheckStats, "its shard list names %s as shard %d of %d; want %s",
				n, i, len(names), planner.OutputName(prefix, i, len(names)))
			return false
		}
	}
	c.opts.Prefix, c.total = prefix, len(names)
	c.parts = make([]part, c.total)
	c.per = c.st.RowsPerShard
	return true
}

// readRows reads dedup_rows.parquet into c.rows, by rank. A missing or
// unreadable file, or ranks that are not 0..n-1 each once, are findings.
func (c *cutVerifier) readRows(ctx context.Context) error {
	name := c.st.RowsFile
	var rows []cutRow
	var bad []string
	err := manifest.ReadFile(ctx, c.store, planner.JoinURI(c.opts.Out, name), nil,
		[]string{"rank", "entry_id", "subset", "input_file", "input_row", "group_key"}, func(r *manifest.Rows) error {
			if rows == nil {
				rows = make([]cutRow, r.Total)
			}
			for k, v := range r.Values {
				rank, _ := v[0].(int64)
				if rank < 0 || rank >= int64(len(rows)) || rows[rank].listed {
					bad = append(bad, fmt.Sprintf("row %d: rank %v", r.First+int64(k), v[0]))
					continue
				}
				cr := &rows[rank]
				cr.listed = true
				cr.entryID, cr.subset, cr.file, cr.group = idString(v[1]), idString(v[2]), idString(v[3]), idString(v[5])
				cr.row, _ = v[4].(int64)
			}
			return nil
		})
	if err := fatal(ctx, err); err != nil {
		return err
	}
	if err != nil {
		c.add(name, -1, CheckRowsFile, "cannot be read (each output row's input row is unknown): %s", derrors.Describe(err))
		return nil
	}
	if rows == nil {
		rows = []cutRow{}
	}
	if len(bad) > 0 {
		c.add(name, -1, CheckRowsFile, "%d rows have a rank out of 0..%d or one already seen (ranks are the output order, each once): %s",
			len(bad), len(rows)-1, named(bad))
	}
	c.rows = rows
	c.acc.Kept = int64(len(rows))
	groups := map[string]bool{}
	for _, r := range rows {
		if r.listed {
			groups[r.group] = true
		}
	}
	c.acc.Groups = len(groups)
	return nil
}

// inputRead is what was read of one input file.
type inputRead struct {
	rows, subsetRows int64
	ok               bool
	got              []gotRow
}

// gotRow is an input row some output row maps to.
type gotRow struct {
	rank             int
	id, sha1, subset string
}

// readInputs reads the input files' footers and their entry_id, sha1 and
// subset columns: the rows of each subset, and the rows the output rows
// map to (which must exist, each used once).
func (c *cutVerifier) readInputs(ctx context.Context) error {
	want := map[string]map[int64]int{} // input file -> row -> rank
	var foreign, twice []string
	for k, r := range c.rows {
		if !r.listed {
			continue
		}
		if !slices.Contains(c.st.Inputs, r.file) {
			foreign = append(foreign, fmt.Sprintf("rank %d (entry %s): %s row %d", k, r.entryID, r.file, r.row))
			continue
		}
		if want[r.file] == nil {
			want[r.file] = map[int64]int{}
		}
		if prev, dup := want[r.file][r.row]; dup {
			twice = append(twice, fmt.Sprintf("%s row %d: ranks %d and %d", r.file, r.row, prev, k))
			continue
		}
		want[r.file][r.row] = k
	}
	rowsFile := c.st.RowsFile
	if len(foreign) > 0 {
		c.add(rowsFile, -1, CheckInputRow, "%d output rows name a file that is not an input of the cut (%s lists %d): %s",
			len(foreign), dedup.StatsFile, len(c.st.Inputs), named(foreign))
	}
	if len(twice) > 0 {
		c.add(rowsFile, -1, CheckInputRow, "%d input rows are used by more than one output row (a cut keeps a row at most once): %s", len(twice), named(twice))
	}
	reads := make([]inputRead, len(c.st.Inputs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.Concurrency)
	for j, f := range c.st.Inputs {
		g.Go(func() error { return c.readInput(gctx, f, want[f], &reads[j]) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	c.inputsRead = true
	c.acc.InputRows, c.acc.SubsetRows = 0, 0
	for _, in := range reads {
		c.inputsRead = c.inputsRead && in.ok
		c.acc.InputRows += in.rows
		c.acc.SubsetRows += in.subsetRows
		for _, gr := range in.got {
			r := &c.rows[gr.rank]
			r.found, r.inID, r.inSHA1, r.inSubset = true, gr.id, gr.sha1, gr.subset
		}
	}
	return nil
}

// readInput reads input file f into in: its rows, those of the subsets cut,
// and the rows want names (row -> rank). An unreadable file, one without
// the columns, and wanted rows it does not have are findings.
func (c *cutVerifier) readInput(ctx context.Context, f string, want map[int64]int, in *inputRead) error {
	s, err := manifest.ReadSchema(ctx, c.store, f)
	if err := fatal(ctx, err); err != nil {
		return err
	}
	if err != nil {
		c.add(f, -1, CheckInput, "an input of the cut cannot be read (%d output rows come from it): %s", len(want), derrors.Describe(err))
		return nil
	}
	cols := []string{corpus.EntryID, corpus.SHA1, "subset"}
	for _, col := range cols {
		if !slices.ContainsFunc(s.Columns, func(fc format.Column) bool { return fc.Name == col }) {
			c.add(f, -1, CheckInput, "an input of the cut has no %s column", col)
			return nil
		}
	}
	in.rows = s.NumRows
	var gone []string
	for row, k := range want {
		if row < 0 || row >= s.NumRows {
			gone = append(gone, fmt.Sprintf("rank %d (entry %s): row %d", k, c.rows[k].entryID, row))
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		c.add(f, -1, CheckInputRow, "%d output rows map to rows this input does not have (it has %d rows; rerun dedup on the run as it is now): %s",
			len(gone), s.NumRows, named(gone))
	}
	err = manifest.ReadFile(ctx, c.store, f, nil, cols, func(r *manifest.Rows) error {
		for k, v := range r.Values {
			sub := idString(v[2])
			if slices.Contains(c.st.Subsets, sub) {
				in.subsetRows++
			}
			if rank, ok := want[r.First+int64(k)]; ok {
				in.got = append(in.got, gotRow{rank: rank, id: idString(v[0]), sha1: idString(v[1]), subset: sub})
			}
		}
		return nil
	})
	if err := fatal(ctx, err); err != nil {
		return err
	}
	if err != nil {
		c.add(f, -1, CheckInput, "the columns %v of an input of the cut cannot be read: %s", cols, derrors.Describe(err))
		in.got, in.subsetRows = nil, 0
		return nil
	}
	in.ok = true
	return nil
}
