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
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/formats/cadv2"
	"github.com/foldcorpus/foldcorpus/internal/ledger"
)

// CADv2 is the format whose documents get a statement mix.
const CADv2 = cadv2.Name

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
		return nil, err
	}
	if len(uris) == 0 && len(opts.Shards) == 0 {
		return nil, fmt.Errorf("%w: no output files (%s) and no ledger records: not the output of a run", derrors.ErrNotFound, opts.Pattern)
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
			return nil, err
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
		return nil, err
	}
	s := summarize(dir, format, files, opts)
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

// plotSpec is one plot to draw.
type plotSpec struct {
	name, title string
	fn          func() ([]byte, error)
}

// draw renders every plot the data allows and lists it in the summary.
func (r *Report) draw(files []*shardFile, opts Options) error {
	s := &r.Summary
	add := func(name, title string, png []byte) {
		r.Files[name] = png
		s.Plots = append(s.Plots, Plot{File: name, Title: title})
	}
	var idx []int
	var docs []float64
	for i, f := range files {
		x := f.Index
		if x < 0 {
			x = i
		}
		idx = append(idx, x)
		docs = append(docs, float64(f.Rows))
	}
	plots := []plotSpec{
		{"documents_per_shard.png", "Documents per shard", func() ([]byte, error) {
			return renderPNG(perShardPlot("Documents per shard", "documents", idx, docs, s.ShardsTotal, barFill))
		}},
	}
	if s.ShardWallClock != nil {
		si, w := wallClocks(opts.Shards)
		plots = append(plots, plotSpec{"shard_wall_clock.png", "Shard wall-clock", func() ([]byte, error) {
			return renderPNG(perShardPlot("Shard wall-clock", "seconds", si, w, s.ShardsTotal, barFill2))
		}})
	}
	if s.SeqLen != nil {
		plots = append(plots, plotSpec{"seq_len.png", "Sequence length", func() ([]byte, error) {
			return renderPNG(histPlot("Sequence length", "residues", s.SeqLen.Histogram))
		}})
	}
	if s.NumTokens != nil {
		plots = append(plots, plotSpec{"num_tokens.png", "Tokens per document", func() ([]byte, error) {
			return renderPNG(histPlot("Tokens per document", "tokens", s.NumTokens.Histogram))
		}}, plotSpec{"context_fill.png", "Context fill", func() ([]byte, error) {
			return renderPNG(histPlot(fmt.Sprintf("Context fill (tokens / %d)", s.ContextLength), "fill", s.ContextFill.Histogram))
		}})
	}
	if s.Statements != nil {
		var series [5][]float64
		for _, f := range files {
			for k := range series {
				series[k] = append(series[k], f.Stmts[k]...)
			}
		}
		plots = append(plots, plotSpec{"statements.png", "Statement mix per document", func() ([]byte, error) {
			p, err := boxPlot("Statements per document", "statements", []string{"long-range", "medium-range", "short-range", "distance"}, series[:4])
			if err != nil {
				return nil, err
			}
			return renderPNG(p)
		}}, plotSpec{"token_composition.png", "Token composition", func() ([]byte, error) {
			tc := s.Statements.TokenComposition
			var all int64
			for _, n := range tc {
				all += n
			}
			labels := []string{"other", "think", "distance statements", "contact statements", "sequence"}
			var pct []float64
			for _, k := range []string{"other", "think", "distance_statements", "contact_statements", "sequence"} {
				pct = append(pct, 100*float64(tc[k])/float64(max(all, 1)))
			}
			p, err := hbarPlot("Token composition (% of all tokens)", "% of tokens", labels, pct)
			if err != nil {
				return nil, err
			}
			return renderPNG(p)
		}}, plotSpec{"think_tokens.png", "Think tokens per document", func() ([]byte, error) {
			d := s.Statements.PerDocument[stmtNames[4]]
			return renderPNG(histPlot("Think tokens per document", "<think> tokens", newHistogram(series[4], integerEdges(d.Max, 30))))
		}})
	}
	plots = append(plots, coordPlots(s)...)
	if s.GlobalPLDDT != nil {
		plots = append(plots, plotSpec{"global_plddt.png", "Global pLDDT", func() ([]byte, error) {
			return renderPNG(histPlot("Global pLDDT", "pLDDT", s.GlobalPLDDT.Histogram))
		}})
	}
	plots = append(plots, plotSpec{"accounting.png", "Rows in vs documents out", func() ([]byte, error) {
		labels, v := accountingBars(s.Accounting)
		p, err := hbarPlot("Rows in vs documents out", "rows", labels, v)
		if err != nil {
			return nil, err
		}
		return renderPNG(p)
	}})
	if t := s.Throughput; t != nil {
		plots = append(plots, plotSpec{"throughput.png", "Throughput over time", func() ([]byte, error) {
			xs := make([]float64, len(t.DocsPerSBy))
			for i := range xs {
				xs[i] = (float64(i) + 0.5) * t.BucketS
			}
			p, err := linePlot("Throughput (documents of shards finishing per second)", "seconds since start", "documents / s", xs, t.DocsPerSBy)
			if err != nil {
				return nil, err
			}
			return renderPNG(p)
		}})
	}
	// Plots are independent: render them on every core, list them in order.
	pngs := make([][]byte, len(plots))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, p := range plots {
		g.Go(func() error {
			png, err := p.fn()
			if err != nil {
				return fmt.Errorf("plot %s: %w", p.name, err)
			}
			pngs[i] = png
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i, p := range plots {
		add(p.name, p.title, pngs[i])
	}
	return nil
}

// accountingBars lists rows in, documents out, each filter reason (sorted),
// skipped, and failed/missing shards, top to bottom (the plot's y axis runs
// upwards, so they are returned reversed).
func accountingBars(a Accounting) ([]string, []float64) {
	labels := []string{"rows in", "documents out"}
	v := []float64{float64(a.RowsIn), float64(a.DocsOut)}
	reasons := make([]string, 0, len(a.Filtered))
	for r := range a.Filtered {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		labels = append(labels, "filtered: "+r)
		v = append(v, float64(a.Filtered[r]))
	}
	labels = append(labels, "skipped", "failed shards", "missing shards")
	v = append(v, float64(a.Skipped), float64(a.ShardsFailed), float64(a.ShardsMissing))
	slices.Reverse(labels)
	slices.Reverse(v)
	return labels, v
}
