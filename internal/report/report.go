// Package report builds the corpus report of a run: report/summary.json (the
// figures as numbers, diffable between runs) and a static report/index.html
// with PNG plots drawn by gonum.org/v1/plot; the page needs no network.
//
// It reads the run's output parquet through a blob.Store (local files or
// gs://), the footer and then only the columns it uses (seq_len,
// global_plddt, num_tokens), and the run's ledger records, which the caller
// passes in. The statement mix of contacts-and-distances-v2 comes from the
// token mix the generator counted into each file's footer (corpus.MixKey);
// the document column is read only for files without one, or when
// Options.ReadDocuments asks to count the documents themselves.
package report

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// CADv2 is the format whose documents get a statement mix.
const CADv2 = distancesv2.Name

// Options configure a report. The zero value reports the parquet files
// alone, with the reference context length.
type Options struct {
	// Run and Shards are the run's ledger records (optional). Without them
	// the accounting comes from the files' key-value metadata and there is
	// no wall-clock or throughput.
	Run    *ledger.Run
	Shards []ledger.Shard
	// Format overrides the format of the run (else Run.Format, else the
	// files' metadata).
	Format string
	// ContextLength is the denominator of context fill (default: the run's
	// context_length option, else 8192).
	ContextLength int
	// Concurrency bounds the files read at once (default 16).
	Concurrency int
	// SkipDocuments leaves the document column unread even for
	// contacts-and-distances-v2 (no statement mix; tokens from num_tokens).
	SkipDocuments bool
	// ReadDocuments counts the statement mix from the documents themselves
	// even in files that carry their generator's token mix (corpus.MixKey),
	// which the report otherwise reads instead: slower (every document is
	// decompressed and tokenized), and a check of the generator's counts.
	ReadDocuments bool
	// Pattern is the glob of output files under the directory (default
	// "*.parquet").
	Pattern string
}

// Report is a built report: its summary and the files of report/.
type Report struct {
	Summary Summary
	// Files maps names under report/ (summary.json, index.html, *.png) to
	// their bytes.
	Files map[string][]byte
}

// Build reads the output of the run in dir (a local path, file:// or gs://
// URI that store serves) and builds the report in memory. It reads only;
// calling it again or concurrently is safe. An unreadable file fails the
// report with an error naming that file; a run with no output files is
// reported (with its failures) rather than refused; a folder with neither
// output files nor ledger records is an error wrapping derrors.ErrNotFound.
func Build(ctx context.Context, store blob.Store, dir string, opts Options) (rep *Report, err error) {
	defer derrors.Wrap(&err, "report.Build(%s)", dir)
	files, s, opts, err := collect(ctx, store, dir, opts)
	if err != nil {
		return nil, err
	}
	if s.Story, err = readStory(ctx, store, dir, manifestOf(opts, files)); err != nil {
		return nil, err
	}
	rep = &Report{Summary: s, Files: map[string][]byte{}}
	if err := rep.draw(files, opts); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(rep.Summary, "", "  ")
	if err != nil {
		return nil, err
	}
	rep.Files["summary.json"] = append(js, '\n')
	page, err := renderPage(rep.Summary)
	if err != nil {
		return nil, err
	}
	rep.Files["index.html"] = page
	return rep, nil
}

// collect reads the run's output files and summarizes them: the files
// read, the summary without its plots, and opts with its defaults filled.
func collect(ctx context.Context, store blob.Store, dir string, opts Options) ([]*shardFile, Summary, Options, error) {
	if opts.ContextLength <= 0 && opts.Run != nil {
		// the run's own context_length option (contacts-and-distances-v2)
		if n, err := strconv.Atoi(opts.Run.Options["context_length"]); err == nil && n > 0 {
			opts.ContextLength = n
		}
	}
	if opts.ContextLength <= 0 {
		opts.ContextLength = 8192
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 16
	}
	if opts.Pattern == "" {
		opts.Pattern = "*.parquet"
	}
	uris, err := store.List(ctx, strings.TrimSuffix(dir, "/")+"/"+opts.Pattern)
	if err != nil {
		return nil, Summary{}, opts, err
	}
	if len(uris) == 0 && len(opts.Shards) == 0 {
		return nil, Summary{}, opts, fmt.Errorf("%w: no output files (%s) and no ledger records: not the output of a run", derrors.ErrNotFound, opts.Pattern)
	}
	format := opts.Format
	if format == "" && opts.Run != nil {
		format = opts.Run.Format
	}
	if format == "" && len(uris) > 0 && !opts.SkipDocuments {
		// the format named in the first file's footer decides whether
		// documents are read at all.
		meta, err := readMeta(ctx, store, uris[0])
		if err != nil {
			return nil, Summary{}, opts, err
		}
		format = formatFromMeta(meta)
	}
	files := make([]*shardFile, len(uris))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	for i, u := range uris {
		g.Go(func() error {
			sf, err := readShard(gctx, store, u, format == CADv2 && !opts.SkipDocuments, !opts.ReadDocuments)
			files[i] = sf
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, Summary{}, opts, err
	}
	return files, summarize(dir, format, files, opts), opts, nil
}

// summarize computes every figure of the summary from the files read.
func summarize(dir, format string, files []*shardFile, opts Options) Summary {
	s := Summary{Source: dir, Format: format, ContextLength: opts.ContextLength, Files: len(files), Plots: []Plot{}}
	total := 0
	for _, f := range files {
		if f.Total > total {
			total = f.Total
		}
	}
	if opts.Run != nil && opts.Run.Shards > total {
		total = opts.Run.Shards
	}
	if len(opts.Shards) > total {
		total = len(opts.Shards)
	}
	s.ShardsTotal = total

	var perShard, seqLen, plddt, tokens, fill []float64
	var stmts [nStmt][]float64
	cols := map[string]bool{}
	for _, f := range files {
		s.Documents += f.Rows
		perShard = append(perShard, float64(f.Rows))
		seqLen = append(seqLen, f.SeqLen...)
		plddt = append(plddt, f.PLDDT...)
		tokens = append(tokens, f.Tokens...)
		for k := range stmts {
			stmts[k] = append(stmts[k], f.Stmts[k]...)
		}
		s.IO.BytesTotal += f.Size
		s.IO.BytesRead += f.BytesRead
		for _, c := range f.Columns {
			cols[c] = true
		}
	}
	for c := range cols {
		s.IO.ColumnsRead = append(s.IO.ColumnsRead, c)
	}
	sort.Strings(s.IO.ColumnsRead)
	for _, t := range tokens {
		fill = append(fill, t/float64(opts.ContextLength))
	}
	s.DocsPerShard = newDist(perShard)
	if len(seqLen) > 0 {
		d := newDist(seqLen)
		s.SeqLen = &DistHist{d, newHistogram(seqLen, integerEdges(d.Max, 40))}
	}
	if len(tokens) > 0 {
		d := newDist(tokens)
		s.NumTokens = &DistHist{d, newHistogram(tokens, integerEdges(max(d.Max, float64(opts.ContextLength)), 32))}
		s.ContextFill = &DistHist{newDist(fill), newHistogram(fill, linearEdges(0, 1, 20))}
	}
	if len(plddt) > 0 {
		s.GlobalPLDDT = &DistHist{newDist(plddt), newHistogram(plddt, linearEdges(0, 100, 20))}
	}
	if len(stmts[0]) > 0 {
		st := &Statements{PerDocument: map[string]Dist{}, Totals: map[string]int64{}}
		for k, name := range stmtNames {
			d := newDist(stmts[k])
			st.PerDocument[name] = d
			st.Totals[name] = int64(d.Sum)
		}
		var seq, all int64
		for _, f := range files {
			st.NumTokensMismatch += f.TokenMismatch
			seq += f.Composition[0]
			all += f.Composition[1]
		}
		contacts := 3 * (st.Totals[stmtNames[0]] + st.Totals[stmtNames[1]] + st.Totals[stmtNames[2]])
		distances := 6 * st.Totals[stmtNames[3]]
		think := st.Totals[stmtNames[4]]
		st.TokenComposition = map[string]int64{"sequence": seq, "contact_statements": contacts,
			"distance_statements": distances, "think": think, "other": all - seq - contacts - distances - think}
		s.Statements = st
	}
	s.Accounting = accounting(files, opts.Shards, total)
	if _, wall := wallClocks(opts.Shards); len(wall) > 0 {
		d := newDist(wall)
		s.ShardWallClock = &d
	}
	s.Throughput = throughput(opts.Shards, 40)
	s.Coordinates = coordinateMix(files)
	return s
}

// wallClocks returns the index and the wall-clock seconds of every done
// shard with both times.
func wallClocks(shards []ledger.Shard) (index []int, secs []float64) {
	for _, sh := range shards {
		if sh.Status == ledger.Done && !sh.Started.IsZero() && !sh.Finished.IsZero() {
			index = append(index, sh.Index)
			secs = append(secs, sh.Finished.Sub(sh.Started).Seconds())
		}
	}
	return index, secs
}
