package report

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Plot size: 8 x 4 inches, rendered at the PNG backend's 96 dpi (768 x 384).
const (
	plotW = 8 * vg.Inch
	plotH = 4 * vg.Inch
)

// plotMargin is the blank border around each panel of a PNG (6 points: 8
// pixels at 96 dpi). gonum/plot draws its title, axis labels and tick
// labels flush with the canvas edge, where glyphs that overhang their
// advance box (the bowl of a "d", a parenthesis) are cut off.
const plotMargin vg.Length = 6

// minFontSize is the smallest size fitText shrinks a title or label to.
const minFontSize vg.Length = 7 // points

var (
	barFill  = color.RGBA{R: 70, G: 130, B: 180, A: 255}
	barFill2 = color.RGBA{R: 230, G: 126, B: 34, A: 255}
)

// renderPNG draws the panels side by side, each in an equal share of the
// width with a blank margin, as one PNG at 96 dpi, encoded for speed (the
// PNG encoding, not the drawing, is most of a report's time). Titles and
// axis labels too wide for their panel are first shrunk to fit (fitLabels).
func renderPNG(panels ...*plot.Plot) ([]byte, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("renderPNG: no panels")
	}
	c := vgimg.NewWith(vgimg.UseWH(plotW, plotH), vgimg.UseDPI(96))
	dc := draw.New(c)
	w := plotW / vg.Length(len(panels))
	for i, p := range panels {
		left := w * vg.Length(i)
		panel := draw.Crop(dc, left+plotMargin, -(plotW - left - w + plotMargin), plotMargin, -plotMargin)
		fitLabels(p, panel.Size().X, panel.Size().Y)
		p.Draw(panel)
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, c.Image()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fitLabels shrinks the title and the axis labels of p that are wider than
// the panel they are drawn in (w x h; the y label runs along the height).
func fitLabels(p *plot.Plot, w, h vg.Length) {
	p.Title.Text = fitText(&p.Title.TextStyle, p.Title.Text, w)
	p.X.Label.Text = fitText(&p.X.Label.TextStyle, p.X.Label.Text, w)
	p.Y.Label.Text = fitText(&p.Y.Label.TextStyle, p.Y.Label.Text, h)
}

// fitText shrinks the font of st until s is at most w wide, down to
// minFontSize; a text still too wide then is cut short with an ellipsis.
// It returns the text to draw.
func fitText(st *text.Style, s string, w vg.Length) string {
	for s != "" && st.Width(s) > w && st.Font.Size > minFontSize {
		st.Font.Size = max(minFontSize, st.Font.Size*vg.Length(w/st.Width(s))*0.98)
	}
	r := []rune(s)
	for len(r) > 0 && st.Width(s) > w {
		r = r[:len(r)-1]
		s = strings.TrimSpace(string(r)) + "…"
	}
	return s
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(4) // keeps the top tick label off the title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker = trimmedTicks{}
	p.Y.Tick.Marker = trimmedTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// trimmedTicks are gonum/plot's default ticks without the zeros it pads
// the labels of some steps with ("250.00" reads 250, "2.50" reads 2.5).
type trimmedTicks struct{}

func (trimmedTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if strings.Contains(t.Label, ".") && !strings.ContainsAny(t.Label, "eE") {
			ticks[i].Label = strings.TrimSuffix(strings.TrimRight(t.Label, "0"), ".")
		}
	}
	return ticks
}

// countTicks is the tick marker of an axis of counts (documents, rows,
// shards, residues, tokens): major ticks at whole multiples of a round step
// (1, 2 or 5 x 10^k, never under 1), labelled as integers, so a count axis
// never reads "2.5 documents" or "5000.00 documents".
type countTicks struct {
	n int // the most labelled ticks; 0 means maxCountTicks
}

// maxCountTicks bounds the labelled ticks of a count axis.
const maxCountTicks = 6

func (ct countTicks) Ticks(lo, hi float64) []plot.Tick {
	most := float64(ct.n)
	if ct.n <= 0 {
		most = maxCountTicks
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi <= lo {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	n := func(step float64) float64 { return math.Floor(hi/step) - math.Ceil(lo/step) + 1 }
	step, minor := 1.0, 0.0
search:
	for p := 1.0; ; p *= 10 {
		for _, m := range []float64{1, 2, 5} {
			step = m * p
			if n(step) <= most {
				switch {
				case m > 1:
					minor = p
				case p >= 10:
					minor = p / 5
				}
				break search
			}
		}
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo / step); k*step <= hi; k++ {
		ticks = append(ticks, plot.Tick{Value: k * step, Label: strconv.FormatFloat(k*step, 'f', 0, 64)})
	}
	if minor > 0 {
		for k := math.Ceil(lo / minor); k*minor <= hi; k++ {
			if math.Mod(k*minor, step) != 0 {
				ticks = append(ticks, plot.Tick{Value: k * minor})
			}
		}
	}
	return ticks
}

// countAxis makes a an axis of counts: integer ticks, from 0 to at least 1.
func countAxis(a *plot.Axis) {
	a.Tick.Marker = countTicks{}
	a.Min = 0
	a.Max = max(a.Max, 1)
}

// integers reports whether every value is a whole number.
func integers(v []float64) bool {
	for _, x := range v {
		if x != math.Trunc(x) {
			return false
		}
	}
	return true
}

// histPlot draws a histogram with exactly the bins of h (the ones in
// summary.json), values outside the edges noted in the title. Its y axis
// counts documents; its x axis is a count axis too when the edges are
// whole numbers (residues, tokens).
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
	countAxis(&p.Y)
	if integers(h.Edges) {
		p.X.Tick.Marker = countTicks{}
	}
	return p
}

// perShardPlot draws one value per shard index as bars over every shard of
// the run, so failed and missing shards show as gaps. The x axis is the
// shard index; counts makes the y axis a count axis (documents).
func perShardPlot(title, y string, index []int, v []float64, total int, fill color.Color, counts bool) *plot.Plot {
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
	if counts {
		countAxis(&p.Y)
	}
	p.X.Min = 0
	p.X.Max = max(p.X.Max, float64(total))
	p.X.Tick.Marker = countTicks{}
	return p
}

// boxPlot draws one box per named series of counts (statements).
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
	countAxis(&p.Y)
	return p, nil
}

// hbarPlot draws labelled horizontal bars (the accounting, the token
// composition); counts makes the value axis a count axis.
func hbarPlot(title, x string, labels []string, v []float64, counts bool) (*plot.Plot, error) {
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
	if counts {
		countAxis(&p.X)
	}
	return p, nil
}

// accountingPlots draws the accounting as two panels: the rows (rows in,
// documents out, each filter reason, skipped) on an axis of rows, and the
// shards (done, failed, missing) on an axis of shards.
func accountingPlots(a Accounting, total int) ([]*plot.Plot, error) {
	labels, v := accountingBars(a)
	rows, err := hbarPlot("Rows in vs documents out", "rows", labels, v, true)
	if err != nil {
		return nil, err
	}
	labels, v = shardBars(a)
	shards, err := hbarPlot(fmt.Sprintf("Shards (%d in the run)", total), "shards", labels, v, true)
	if err != nil {
		return nil, err
	}
	shards.X.Max = max(shards.X.Max, float64(total))
	// half a PNG's width each: fewer labels, so wide counts do not crowd
	rows.X.Tick.Marker = countTicks{n: 4}
	shards.X.Tick.Marker = countTicks{n: 4}
	return []*plot.Plot{rows, shards}, nil
}

// throughputPlot draws documents per second over the time shards were
// running: idle stretches (between an interrupted run and its resume) are
// cut out of the time axis, and the longer ones marked by dashed lines.
func throughputPlot(t *Throughput) (*plot.Plot, error) {
	x := "seconds with shards running"
	if t.IdleS > 0 {
		x = fmt.Sprintf("%s (%s idle cut out", x, time.Duration(t.IdleS*float64(time.Second)).Round(time.Second))
		if len(t.Gaps) > 0 {
			x += ", at the dashed lines"
		}
		x += ")"
	}
	p := newPlot("Throughput (documents per second of running shards)", x, "documents / s")
	pts := make(plotter.XYs, len(t.DocsPerSBy))
	top := 0.0
	for i, v := range t.DocsPerSBy {
		pts[i].X, pts[i].Y = (float64(i)+0.5)*t.BucketS, v
		top = max(top, v)
	}
	for _, g := range t.Gaps {
		l, err := plotter.NewLine(plotter.XYs{{X: g.AtS, Y: 0}, {X: g.AtS, Y: top}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 100}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
	}
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	l.Color = barFill2
	s.Color = barFill2
	p.Add(l, s)
	p.Y.Min = 0
	p.X.Min = 0
	p.X.Max = max(p.X.Max, t.ActiveS)
	return p, nil
}
