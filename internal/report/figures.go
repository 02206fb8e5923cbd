package report

import (
	"fmt"
	"runtime"
	"slices"
	"sort"

	"golang.org/x/sync/errgroup"
	"gonum.org/v1/plot"
)

// plotSpec is one PNG to draw: its panels, side by side.
type plotSpec struct {
	name, title string
	panels      func() ([]*plot.Plot, error)
}

// one wraps a single plot as a PNG's panels.
func one(p *plot.Plot) ([]*plot.Plot, error) { return []*plot.Plot{p}, nil }

// oneOrErr wraps a single plot and its error as a PNG's panels.
func oneOrErr(p *plot.Plot, err error) ([]*plot.Plot, error) {
	if err != nil {
		return nil, err
	}
	return one(p)
}

// draw renders every plot the data allows and lists it in the summary.
func (r *Report) draw(files []*shardFile, opts Options) error {
	specs := r.plotSpecs(files, opts)
	// Plots are independent: render them on every core, list them in order.
	pngs := make([][]byte, len(specs))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, sp := range specs {
		g.Go(func() error {
			panels, err := sp.panels()
			if err == nil {
				pngs[i], err = renderPNG(panels...)
			}
			if err != nil {
				return fmt.Errorf("plot %s: %w", sp.name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i, sp := range specs {
		r.Files[sp.name] = pngs[i]
		r.Summary.Plots = append(r.Summary.Plots, Plot{File: sp.name, Title: sp.title})
	}
	return nil
}

// plotSpecs lists the plots of the summary and the files read, in page
// order.
func (r *Report) plotSpecs(files []*shardFile, opts Options) []plotSpec {
	s := &r.Summary
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
		{"documents_per_shard.png", "Documents per shard", func() ([]*plot.Plot, error) {
			return one(perShardPlot("Documents per shard", "documents", idx, docs, s.ShardsTotal, barFill, true))
		}},
	}
	if s.ShardWallClock != nil {
		si, w := wallClocks(opts.Shards)
		plots = append(plots, plotSpec{"shard_wall_clock.png", "Shard wall-clock", func() ([]*plot.Plot, error) {
			return one(perShardPlot("Shard wall-clock", "seconds", si, w, s.ShardsTotal, barFill2, false))
		}})
	}
	if s.SeqLen != nil {
		plots = append(plots, plotSpec{"seq_len.png", "Sequence length", func() ([]*plot.Plot, error) {
			return one(histPlot("Sequence length", "residues", s.SeqLen.Histogram))
		}})
	}
	if s.NumTokens != nil {
		plots = append(plots, plotSpec{"num_tokens.png", "Tokens per document", func() ([]*plot.Plot, error) {
			return one(histPlot("Tokens per document", "tokens", s.NumTokens.Histogram))
		}}, plotSpec{"context_fill.png", "Context fill", func() ([]*plot.Plot, error) {
			return one(histPlot(fmt.Sprintf("Context fill (tokens / %d)", s.ContextLength), "fill", s.ContextFill.Histogram))
		}})
	}
	if s.Statements != nil {
		plots = append(plots, statementSpecs(s, files)...)
	}
	plots = append(plots, coordPlots(s)...)
	if s.GlobalPLDDT != nil {
		plots = append(plots, plotSpec{"global_plddt.png", "Global pLDDT", func() ([]*plot.Plot, error) {
			return one(histPlot("Global pLDDT", "pLDDT", s.GlobalPLDDT.Histogram))
		}})
	}
	plots = append(plots, plotSpec{"accounting.png", "Rows in vs documents out; shards", func() ([]*plot.Plot, error) {
		return accountingPlots(s.Accounting, s.ShardsTotal)
	}})
	if t := s.Throughput; t != nil {
		plots = append(plots, plotSpec{"throughput.png", "Throughput over running time", func() ([]*plot.Plot, error) {
			return oneOrErr(throughputPlot(t))
		}})
	}
	return plots
}

// statementSpecs are the statement mix's plots (contacts-and-distances-v2).
func statementSpecs(s *Summary, files []*shardFile) []plotSpec {
	var series [5][]float64
	for _, f := range files {
		for k := range series {
			series[k] = append(series[k], f.Stmts[k]...)
		}
	}
	return []plotSpec{{"statements.png", "Statement mix per document", func() ([]*plot.Plot, error) {
		return oneOrErr(boxPlot("Statements per document", "statements", []string{"long-range", "medium-range", "short-range", "distance"}, series[:4]))
	}}, {"token_composition.png", "Token composition", func() ([]*plot.Plot, error) {
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
		return oneOrErr(hbarPlot("Token composition (% of all tokens)", "% of tokens", labels, pct, false))
	}}, {"think_tokens.png", "Think tokens per document", func() ([]*plot.Plot, error) {
		d := s.Statements.PerDocument[stmtNames[4]]
		return one(histPlot("Think tokens per document", "<think> tokens", newHistogram(series[4], integerEdges(d.Max, 30))))
	}}}
}

// accountingBars lists rows in, documents out, each filter reason (sorted)
// and skipped, top to bottom (the plot's y axis runs upwards, so they are
// returned reversed): every bar counts rows.
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
	labels = append(labels, "skipped")
	v = append(v, float64(a.Skipped))
	slices.Reverse(labels)
	slices.Reverse(v)
	return labels, v
}

// shardBars lists the done, failed (or dead-lettered) and missing shards,
// top to bottom (returned reversed): every bar counts shards.
func shardBars(a Accounting) ([]string, []float64) {
	return []string{"missing", "failed", "done"},
		[]float64{float64(a.ShardsMissing), float64(a.ShardsFailed), float64(a.ShardsDone)}
}
