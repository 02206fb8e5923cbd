package verify

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/corpus"
	"github.com/foldcorpus/foldcorpus/internal/dedup"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

// cutFormat is the format a cut's shard footers name.
const cutFormat = "dedup"

// shardRead is what checkCutShard read of one shard.
type shardRead struct {
	seen            []int // ranks of its rows
	hashed, matched int64
	tokens          int64
	hasTokens       bool
}

// checkShards checks every shard present under its own name, opts.Concurrency
// at a time, and sums what they hold.
func (c *cutVerifier) checkShards(ctx context.Context) error {
	if c.per <= 0 {
		c.per = c.inferPerShard()
	}
	reads := make([]*shardRead, c.total)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.Concurrency)
	for i, o := range c.files {
		if o == nil {
			continue
		}
		g.Go(func() (err error) {
			reads[i], err = c.checkCutShard(gctx, i, o)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	tokens := true
	for _, r := range reads {
		if r == nil {
			tokens = false
			continue
		}
		c.rep.Hashed += r.hashed
		c.acc.Matched += r.matched
		c.acc.Tokens += r.tokens
		tokens = tokens && r.hasTokens
		for _, k := range r.seen {
			if k < len(c.rows) {
				c.rows[k].seenOut = true
			}
		}
	}
	if !tokens {
		c.acc.Tokens = -1
	}
	return nil
}

// inferPerShard returns the rows per shard of a cut whose stats do not
// record them (all shards but the last hold as many): one shard's rows.
func (c *cutVerifier) inferPerShard() int {
	if c.total == 1 {
		return max(1, len(c.rows))
	}
	for i := 0; i < c.total-1; i++ {
		if o := c.files[i]; o != nil && o.meta != nil && o.meta.NumRows > 0 {
			return int(o.meta.NumRows)
		}
	}
	return 0
}

// checkCutShard checks shard i's file o: its footer, and each row against
// its dedup_rows.parquet row and its input row (and, Deep, its sha1).
func (c *cutVerifier) checkCutShard(ctx context.Context, i int, o *object) (*shardRead, error) {
	if o.err != nil {
		c.add(o.name, i, "unreadable", "not a readable foldcorpus file (partial, truncated or foreign): %s", derrors.Describe(o.err))
		return nil, nil
	}
	a, m := o.meta.Accounting, o.meta
	if a.Format != cutFormat || a.RunID != c.runID || a.Shard != i || a.Total != c.total {
		c.add(o.name, i, "identity", "its footer says format %s, run %s, shard %d of %d; a cut's shard %d of %d says format %s, run %s",
			a.Format, a.RunID, a.Shard, a.Total, i, c.total, cutFormat, c.runID)
	}
	if !a.Balanced() || a.RowsIn != a.DocsOut || a.Skipped != 0 || sum(a.Filtered) != 0 {
		c.add(o.name, i, "balance", "rows_in %d, %d documents, %d filtered, %d skipped: a cut's shard keeps every row it takes in", a.RowsIn, a.DocsOut, sum(a.Filtered), a.Skipped)
	}
	if m.NumRows != a.DocsOut {
		c.add(o.name, i, "rows", "%d rows in the file; its accounting says %d documents", m.NumRows, a.DocsOut)
	}
	n := len(c.rows)
	if c.rows != nil && c.per > 0 {
		if want := max(0, min(n, (i+1)*c.per)-min(n, i*c.per)); m.NumRows != int64(want) {
			c.add(o.name, i, "rows", "%d rows; the cut's %d rows (%s), %d a shard, put %d in shard %d", m.NumRows, n, c.st.RowsFile, c.per, want, i)
		}
	}
	cols := []string{corpus.EntryID, corpus.SHA1}
	if c.opts.Deep {
		cols = append(cols, corpus.Document)
	}
	for _, col := range cols {
		if !slices.Contains(m.Columns, col) {
			c.add(o.name, i, "rows", "no %s column", col)
			return nil, nil
		}
	}
	sr := &shardRead{hasTokens: slices.Contains(m.Columns, "num_tokens")}
	if sr.hasTokens {
		cols = append(cols, "num_tokens")
	}
	var f rowFindings
	err := corpus.Read(ctx, c.store, o.uri, cols, func(r *manifest.Rows) error {
		for j, v := range r.Values {
			c.checkCutRow(sr, &f, i, r.First+int64(j), v, cols)
		}
		return nil
	})
	if err := fatal(ctx, err); err != nil {
		return nil, err
	}
	if err != nil {
		c.add(o.name, i, "unreadable", "its columns cannot be read (partial or corrupt file): %s", derrors.Describe(err))
		return nil, nil
	}
	f.report(c, o.name, i)
	return sr, nil
}

// rowFindings gathers one shard's row findings by kind.
type rowFindings struct {
	outOfRange, unlisted, listedAs, entry, sha, hash []string
}

// checkCutRow checks row j of shard i (values v of cols).
func (c *cutVerifier) checkCutRow(sr *shardRead, f *rowFindings, i int, j int64, v []any, cols []string) {
	id, sha := idString(v[0]), idString(v[1])
	if c.opts.Deep {
		doc, _ := v[2].(string)
		h := sha1.Sum([]byte(doc))
		if got := hex.EncodeToString(h[:]); got != sha {
			f.hash = append(f.hash, fmt.Sprintf("row %d (entry %s): sha1 column %s, document hashes to %s", j, id, sha, got))
		}
		sr.hashed++
	}
	if sr.hasTokens {
		n, _ := v[len(cols)-1].(int64)
		sr.tokens += n
	}
	if c.rows == nil || c.per <= 0 {
		return
	}
	rank := int64(i)*int64(c.per) + j
	switch {
	case rank >= int64(len(c.rows)):
		f.outOfRange = append(f.outOfRange, fmt.Sprintf("row %d (entry %s): rank %d", j, id, rank))
		return
	case !c.rows[rank].listed:
		f.unlisted = append(f.unlisted, fmt.Sprintf("row %d (entry %s): rank %d", j, id, rank))
		return
	}
	sr.seen = append(sr.seen, int(rank))
	r := c.rows[rank]
	if id != r.entryID {
		f.listedAs = append(f.listedAs, fmt.Sprintf("row %d: entry %s; rank %d is entry %s there", j, id, rank, r.entryID))
	}
	if !r.found {
		return
	}
	sr.matched++
	if id != r.inID {
		f.entry = append(f.entry, fmt.Sprintf("row %d (entry %s): its input %s row %d is entry %s", j, id, r.file, r.row, r.inID))
	}
	if sha != r.inSHA1 {
		f.sha = append(f.sha, fmt.Sprintf("row %d (entry %s): sha1 %s; its input %s row %d has %s", j, id, sha, r.file, r.row, r.inSHA1))
	}
}

// report records the findings of shard i.
func (f *rowFindings) report(c *cutVerifier, name string, i int) {
	rf := c.st.RowsFile
	if len(f.outOfRange) > 0 {
		c.add(name, i, "rows", "%d rows are past the cut's %d rows (%s): %s", len(f.outOfRange), len(c.rows), rf, named(f.outOfRange))
	}
	if len(f.unlisted) > 0 {
		c.add(name, i, CheckRowsFile, "%d rows have no row in %s: %s", len(f.unlisted), rf, named(f.unlisted))
	}
	if len(f.listedAs) > 0 {
		c.add(name, i, "entry_ids", "%d rows are other entries than %s says: %s", len(f.listedAs), rf, named(f.listedAs))
	}
	if len(f.entry) > 0 {
		c.add(name, i, "entry_ids", "%d rows differ from their input row's entry_id: %s", len(f.entry), named(f.entry))
	}
	if len(f.sha) > 0 {
		c.add(name, i, "sha1", "%d rows differ from their input row's sha1 (the document is not the run's): %s", len(f.sha), named(f.sha))
	}
	if len(f.hash) > 0 {
		c.add(name, i, "sha1", "%d documents differ from their sha1: %s", len(f.hash), named(f.hash))
	}
}

// checkRows checks what no shard read can: rows of dedup_rows.parquet in
// no shard, and each kept row's subset (one the cut draws from, the one
// the rows file names); it counts the rows kept by subset.
func (c *cutVerifier) checkRows() {
	var unseen, notCut, otherSubset []string
	for k, r := range c.rows {
		if r.listed && !r.seenOut {
			unseen = append(unseen, fmt.Sprintf("rank %d (entry %s)", k, r.entryID))
		}
		if !r.found {
			continue
		}
		c.acc.BySubset[r.inSubset]++
		if !slices.Contains(c.st.Subsets, r.inSubset) {
			notCut = append(notCut, fmt.Sprintf("rank %d (entry %s): %s row %d is %q", k, r.entryID, r.file, r.row, r.inSubset))
		}
		if r.subset != r.inSubset {
			otherSubset = append(otherSubset, fmt.Sprintf("rank %d (entry %s): %q, its input row %q", k, r.entryID, r.subset, r.inSubset))
		}
	}
	rf := c.st.RowsFile
	if len(unseen) > 0 && len(c.rep.Missing) == 0 && c.per > 0 {
		c.add(rf, -1, CheckRowsFile, "%d of its rows are in no shard: %s", len(unseen), named(unseen))
	}
	if len(notCut) > 0 {
		c.add(rf, -1, CheckInputRow, "%d output rows come from rows of subsets the cut does not draw from (%v): %s", len(notCut), c.st.Subsets, named(notCut))
	}
	if len(otherSubset) > 0 {
		c.add(rf, -1, CheckRowsFile, "%d rows name another subset than their input row's: %s", len(otherSubset), named(otherSubset))
	}
}

// checkStats compares dedup_stats.json with the counts recomputed, and sets
// the report's totals.
func (c *cutVerifier) checkStats() {
	st, a := c.st, c.acc
	a.Dropped = a.SubsetRows - a.Kept
	if c.inputsRead {
		c.rep.Rows, c.rep.Accounted = a.InputRows, a.InputRows
		c.rep.Filtered["duplicate"], c.rep.Filtered["other_subset"] = a.Dropped, a.InputRows-a.SubsetRows
	}
	c.rep.Documents = a.Kept
	bad := func(format string, args ...any) { c.add(dedup.StatsFile, -1, CheckStats, format, args...) }
	if st.RowsIn != st.RowsOtherSubset+st.DocsOut+st.DroppedDuplicates {
		bad("does not balance: rows_in %d != %d rows_other_subset + %d docs_out + %d dropped_duplicates", st.RowsIn, st.RowsOtherSubset, st.DocsOut, st.DroppedDuplicates)
	}
	var shardRows int64
	for _, o := range c.files {
		if o != nil && o.meta != nil {
			shardRows += o.meta.NumRows
		}
	}
	if c.rows != nil && st.DocsOut != a.Kept {
		bad("says docs_out %d; %s has %d rows", st.DocsOut, st.RowsFile, a.Kept)
	}
	if len(c.rep.Missing) == 0 && st.DocsOut != shardRows {
		bad("says docs_out %d; its shards hold %d rows", st.DocsOut, shardRows)
	}
	if c.rows != nil && st.Groups != a.Groups {
		bad("says groups %d; %s has %d distinct group keys", st.Groups, st.RowsFile, a.Groups)
	}
	if c.inputsRead {
		if st.RowsIn != a.InputRows {
			bad("says rows_in %d; its %d inputs hold %d rows", st.RowsIn, len(st.Inputs), a.InputRows)
		}
		if other := a.InputRows - a.SubsetRows; st.RowsOtherSubset != other {
			bad("says rows_other_subset %d; the inputs hold %d rows of subsets other than %v", st.RowsOtherSubset, other, st.Subsets)
		}
		if st.DocsOut+st.DroppedDuplicates != a.SubsetRows {
			bad("says %d kept + %d dropped as duplicates = %d; the inputs hold %d rows of subsets %v", st.DocsOut, st.DroppedDuplicates,
				st.DocsOut+st.DroppedDuplicates, a.SubsetRows, st.Subsets)
		}
	}
	if c.inputsRead && c.rows != nil && a.Matched == a.Kept && !maps.Equal(st.DocsBySubset, a.BySubset) {
		bad("says docs_by_subset %v; the kept rows' input rows are %v", st.DocsBySubset, a.BySubset)
	}
	if a.Tokens >= 0 && len(c.rep.Missing) == 0 && st.Tokens != a.Tokens {
		bad("says num_tokens %d; the shards' num_tokens sum to %d", st.Tokens, a.Tokens)
	}
}

// WriteCutText writes a cut's report for people, as WriteText a run's: a
// summary, every missing shard, extra object and disagreement, one a line,
// then WHOLE or NOT WHOLE.
func WriteCutText(w io.Writer, r *CutReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "verify %s (a dedup cut)\n", r.Out)
	if st := r.Cut.Stats; st != nil {
		ins := st.Inputs
		more := ""
		if len(ins) > 3 {
			ins, more = ins[:3], fmt.Sprintf(" and %d more", len(st.Inputs)-3)
		}
		fmt.Fprintf(&b, "  cut of    %d input files (%s%s): subsets %s, %d a group, seed %d\n",
			len(st.Inputs), strings.Join(ins, ", "), more, strings.Join(st.Subsets, ", "), st.MaxPerCluster, st.Seed)
	}
	fmt.Fprintf(&b, "  shards    %d, %d files under their own names, %d missing, %d extra objects, %d disagreements\n",
		r.Shards, r.Files, len(r.Missing), len(r.Extra), len(r.Disagrees))
	a := r.Cut
	rows := "unknown (an input cannot be read)"
	if r.Rows >= 0 {
		rows = fmt.Sprintf("%d (%d of the subsets cut, %d of others)", a.InputRows, a.SubsetRows, a.InputRows-a.SubsetRows)
	}
	fmt.Fprintf(&b, "  rows in   %s\n  kept      %d in %d groups %v, dropped %d as duplicates\n", rows, a.Kept, a.Groups, a.BySubset, a.Dropped)
	fmt.Fprintf(&b, "  matched   %d output rows with their input row (entry_id, sha1)\n", a.Matched)
	if r.Deep {
		fmt.Fprintf(&b, "  deep      %d documents' sha1 recomputed\n", r.Hashed)
	}
	fmt.Fprintf(&b, "  read      %d bytes of footers and columns (%d reads) in %s\n", r.BytesRead, r.Reads, r.Wall.Round(time.Millisecond))
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "MISSING   shard %05d: no %s\n", m.Shard, m.Name)
	}
	for _, e := range r.Extra {
		fmt.Fprintf(&b, "EXTRA     %s (%s): %s\n", e.Name, e.Kind, e.Detail)
	}
	for _, d := range r.Disagrees {
		if d.Shard >= 0 {
			fmt.Fprintf(&b, "DISAGREES %s (shard %05d, %s): %s\n", d.Name, d.Shard, d.Check, d.Detail)
		} else {
			fmt.Fprintf(&b, "DISAGREES %s (%s): %s\n", d.Name, d.Check, d.Detail)
		}
	}
	if r.OK() {
		b.WriteString("WHOLE\n")
	} else {
		b.WriteString("NOT WHOLE\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
