package report

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot size: 8 x 4 inches, rendered at the PNG backend's 96 dpi (768 x 384).
const (
	plotW = 8 * vg.Inch
	plotH = 4 * vg.Inch
)

var (
	barFill  = color.RGBA{R: 70, G: 130, B: 180, A: 255}
	barFill2 = color.RGBA{R: 230, G: 126, B: 34, A: 255}
)

// renderPNG draws p as a PNG at 96 dpi, encoded for speed (the PNG
// encoding, not the drawing, is most of a report's time).
func renderPNG(p *plot.Plot) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(plotW, plotH), vgimg.UseDPI(96))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, c.Image()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

// histPlot draws a histogram with exactly the bins of h (the ones in
// summary.json), values outside the edges noted in the title.
func histPlot(title, x string, h Histogram) *plot.Plot {
	if h.Below+h.Above > 0 {
		title = fmt.Sprintf("%s (%d below, %d above the range)", title, h.Below, h.Above)
	}
	p := newPlot(title, x, "documents")
	bins := make([]plotter.HistogramBin, len(h.Counts))
	for i, c := range h.Counts {
		bins[i] = plotter.HistogramBin{Min: h.Edges[i], Max: h.Edges[i+1], Weight: float64(c)}
	}
	hp := &plotter.Histogram{Bins: bins, Width: h.Edges[1] - h.Edges[0], FillColor: barFill, LineStyle: plotter.DefaultLineStyle}
	hp.LineStyle.Width = vg.Points(0.5)
	p.Add(hp)
	p.Y.Min = 0
	return p
}

// perShardPlot draws one value per shard index as bars over every shard of
// the run, so failed and missing shards show as gaps.
func perShardPlot(title, y string, index []int, v []float64, total int, fill color.Color) *plot.Plot {
	p := newPlot(title, "shard", y)
	bins := make([]plotter.HistogramBin, len(v))
	for i := range v {
		x := float64(index[i])
		bins[i] = plotter.HistogramBin{Min: x, Max: x + 1, Weight: v[i]}
	}
	hp := &plotter.Histogram{Bins: bins, Width: 1, FillColor: fill}
	if len(v) <= 200 {
		hp.LineStyle = plotter.DefaultLineStyle
		hp.LineStyle.Width = vg.Points(0.5)
	}
	p.Add(hp)
	p.Y.Min = 0
	p.X.Min = 0
	p.X.Max = max(p.X.Max, float64(total))
	return p
}

// boxPlot draws one box per named series.
func boxPlot(title, y string, names []string, series [][]float64) (*plot.Plot, error) {
	p := newPlot(title, "", y)
	for i, s := range series {
		if len(s) == 0 {
			s = []float64{0}
		}
		b, err := plotter.NewBoxPlot(vg.Points(40), float64(i), plotter.Values(s))
		if err != nil {
			return nil, err
		}
		b.FillColor = color.RGBA{R: 200, G: 220, B: 240, A: 255}
		p.Add(b)
	}
	p.NominalX(names...)
	return p, nil
}

// hbarPlot draws labelled horizontal bars (the accounting).
func hbarPlot(title, x string, labels []string, v []float64) (*plot.Plot, error) {
	p := newPlot(title, x, "")
	b, err := plotter.NewBarChart(plotter.Values(v), vg.Points(14))
	if err != nil {
		return nil, err
	}
	b.Horizontal = true
	b.Color = barFill
	p.Add(b)
	p.NominalY(labels...)
	p.X.Min = 0
	return p, nil
}

// linePlot draws y over x with points.
func linePlot(title, x, y string, xs, ys []float64) (*plot.Plot, error) {
	p := newPlot(title, x, y)
	pts := make(plotter.XYs, len(xs))
	for i := range xs {
		pts[i].X, pts[i].Y = xs[i], ys[i]
	}
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	l.Color = barFill2
	s.Color = barFill2
	p.Add(l, s)
	p.Y.Min = 0
	return p, nil
}
