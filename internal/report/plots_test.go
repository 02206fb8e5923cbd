package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/foldcorpus/foldcorpus/internal/ledger"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// resumedRun writes a synthetic run that was interrupted after its first
// half of shards and resumed an hour later, with failed and missing
// shards, and returns its folder and ledger records.
func resumedRun(t *testing.T) (string, []ledger.Shard) {
	t.Helper()
	dir := t.TempDir()
	shards, err := WriteSynthetic(context.Background(), localblob.Store{}, dir,
		SynthConfig{Shards: 24, RowsPerShard: 60, FailEvery: 7, Missing: true, Seed: 3, Resume: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return dir, shards
}

// reportPanels returns the panels of every plot the report of dir draws,
// by file name, with the summary.
func reportPanels(t *testing.T, dir string, opts Options) (map[string][]*plot.Plot, Summary) {
	t.Helper()
	files, s, opts, err := collect(context.Background(), localblob.Store{}, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Summary: s}
	panels := map[string][]*plot.Plot{}
	for _, sp := range r.plotSpecs(files, opts) {
		ps, err := sp.panels()
		if err != nil {
			t.Fatalf("plot %s: %v", sp.name, err)
		}
		panels[sp.name] = ps
	}
	return panels, s
}

// majorLabels returns the labels of the labelled ticks of a.
func majorLabels(a plot.Axis) []string {
	var labels []string
	for _, tk := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if !tk.IsMinor() {
			labels = append(labels, tk.Label)
		}
	}
	return labels
}

// inkInBorder returns the first pixel within b pixels of the image's edge
// that is not background white, and whether there is one.
func inkInBorder(img image.Image, b int) (image.Point, bool) {
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if x >= r.Min.X+b && x < r.Max.X-b && y >= r.Min.Y+b && y < r.Max.Y-b {
				continue
			}
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr>>8 < 250 || cg>>8 < 250 || cb>>8 < 250 {
				return image.Point{X: x, Y: y}, true
			}
		}
	}
	return image.Point{}, false
}

// TestPlotsFitTheirCanvas checks that no title, label or bar is cut at the
// edge of a PNG: every plot of a report keeps a blank border, and titles
// and axis labels are no wider than their panel, even a title too long for
// the canvas at its normal size.
func TestPlotsFitTheirCanvas(t *testing.T) {
	ctx := context.Background()
	dir, shards := resumedRun(t)
	rep, err := Build(ctx, localblob.Store{}, dir, Options{Shards: shards})
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, data []byte) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != 768 || b.Dy() != 384 {
			t.Errorf("%s: %v, want 768x384", name, b)
		}
		if p, ok := inkInBorder(img, 4); ok {
			t.Errorf("%s: ink at %v, within 4 pixels of the edge: a title or label is cut", name, p)
		}
	}
	for _, p := range rep.Summary.Plots {
		check(p.File, rep.Files[p.File])
	}
	if len(rep.Summary.Plots) != len(allPlots) {
		t.Errorf("%d plots, want %d", len(rep.Summary.Plots), len(allPlots))
	}

	long := histPlot(strings.Repeat("A title far too long for the canvas ", 6), strings.Repeat("an axis label too long ", 8),
		Histogram{Edges: []float64{0, 1, 2}, Counts: []int64{3, 4}})
	panels, _ := reportPanels(t, dir, Options{Shards: shards})
	panels["long title"] = []*plot.Plot{long}
	for name, ps := range panels {
		data, err := renderPNG(ps...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		check(name, data)
		w := plotW/vg.Length(len(ps)) - 2*plotMargin
		for _, p := range ps {
			if tw := p.Title.TextStyle.Width(p.Title.Text); tw > w {
				t.Errorf("%s: title %q is %v wide, the panel %v", name, p.Title.Text, tw, w)
			}
			if lw := p.X.Label.TextStyle.Width(p.X.Label.Text); lw > w {
				t.Errorf("%s: x label %q is %v wide, the panel %v", name, p.X.Label.Text, lw, w)
			}
		}
	}
}

// TestCountAxesHaveIntegerTicks checks that an axis counting documents,
// rows, shards, residues, tokens or statements is labelled with whole
// numbers only ("5000", never "5000.00" or "2.5"), for every plot of a
// report and for histograms of any height.
func TestCountAxesHaveIntegerTicks(t *testing.T) {
	counts := map[string]bool{"documents": true, "rows": true, "shards": true, "shard": true, "residues": true,
		"tokens": true, "<think> tokens": true, "statements": true}
	checkAxis := func(what string, a plot.Axis) {
		t.Helper()
		labels := majorLabels(a)
		if len(labels) < 2 {
			t.Errorf("%s: ticks %q over [%v, %v]: want at least 2 labelled", what, labels, a.Min, a.Max)
		}
		for _, l := range labels {
			if _, err := strconv.ParseInt(l, 10, 64); err != nil {
				t.Errorf("%s: tick label %q over [%v, %v] is not a whole number", what, l, a.Min, a.Max)
				return
			}
		}
	}
	dir, shards := resumedRun(t)
	panels, _ := reportPanels(t, dir, Options{Shards: shards})
	seen := 0
	for name, ps := range panels {
		for _, p := range ps {
			for _, a := range []plot.Axis{p.X, p.Y} {
				if counts[a.Label.Text] {
					seen++
					checkAxis(fmt.Sprintf("%s: %s axis", name, a.Label.Text), a)
				}
			}
		}
	}
	if seen < 10 {
		t.Errorf("checked %d count axes, want the 10 or more of a contacts-and-distances-v2 report", seen)
	}
	for _, top := range []int64{0, 1, 2, 3, 5, 7, 11, 24, 56, 99, 250, 1234, 5000, 12345, 999999, 24_000_000} {
		p := histPlot("h", "pLDDT", Histogram{Edges: []float64{0, 50, 100}, Counts: []int64{top, top / 3}})
		checkAxis(fmt.Sprintf("histogram of %d documents: documents axis", top), p.Y)
		p = perShardPlot("s", "documents", []int{0, 1, 2}, []float64{float64(top), 1, 0}, int(top%17)+3, barFill, true)
		checkAxis(fmt.Sprintf("%d documents per shard: documents axis", top), p.Y)
		checkAxis(fmt.Sprintf("%d shards: shard axis", top%17+3), p.X)
	}
}

// TestThroughputResumed checks that throughput counts running time only:
// the hour between an interrupted run and its resume is idle, cut out of
// the rate and of the plot's time axis, and the rate does not fall to 0
// between shard completions while shards are running.
func TestThroughputResumed(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	done := func(i int, b, e float64, docs int64) ledger.Shard {
		return ledger.Shard{Index: i, Status: ledger.Done, Started: sec(b), Finished: sec(e), Counts: ledger.Counts{RowsIn: docs, DocsOut: docs}}
	}
	// Two shards run at once, one more after them; then the run stops
	// and is resumed an hour later for the last shard.
	tp := throughput([]ledger.Shard{done(0, 0, 10, 100), done(1, 0, 20, 200), done(2, 20, 30, 50),
		{Index: 3, Status: ledger.Failed}, done(4, 3630, 3640, 50)}, 40)
	if tp == nil || tp.WallS != 3640 || tp.ActiveS != 40 || tp.IdleS != 3600 || !near(tp.DocsPerS, 400.0/40) {
		t.Fatalf("throughput = %+v, want 400 documents over 40 s running (3600 s idle of 3640)", tp)
	}
	if len(tp.Gaps) != 1 || tp.Gaps[0] != (IdleGap{AtS: 30, IdleS: 3600}) {
		t.Errorf("idle gaps %+v, want one of 3600 s after 30 s running", tp.Gaps)
	}
	var sum float64
	for i, v := range tp.DocsPerSBy {
		sum += v * tp.BucketS
		if v <= 0 {
			t.Errorf("bucket %d of %v s: %v documents/s while shards ran", i, tp.BucketS, v)
		}
	}
	if math.Abs(sum-400) > 1e-9 {
		t.Errorf("buckets hold %v documents, want 400", sum)
	}
	if got, want := tp.DocsPerSBy[0], 20.0; !near(got, want) { // shards 0 and 1: 10 + 10 documents/s
		t.Errorf("first bucket %v documents/s, want %v", got, want)
	}

	// The report of a resumed synthetic run: its plot runs over running
	// time, and its page says how much was idle.
	ctx := context.Background()
	dir, shards := resumedRun(t)
	rep, err := Build(ctx, localblob.Store{}, dir, Options{Shards: shards})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Summary.Throughput
	if s == nil || s.IdleS < 3590 || s.ActiveS > 10 || !near(s.ActiveS+s.IdleS, s.WallS) || len(s.Gaps) != 1 {
		t.Fatalf("throughput of the resumed run = %+v, want about an hour idle and a few seconds running", s)
	}
	for i, v := range s.DocsPerSBy {
		if v <= 0 {
			t.Errorf("resumed run: bucket %d: %v documents/s", i, v)
		}
	}
	panels, _ := reportPanels(t, dir, Options{Shards: shards})
	p := panels["throughput.png"][0]
	if p.X.Min != 0 || p.X.Max > s.ActiveS*(1+1e-9) {
		t.Errorf("throughput plot's time axis [%v, %v], want [0, %v] (running time, not %v s of wall-clock)", p.X.Min, p.X.Max, s.ActiveS, s.WallS)
	}
	page := string(rep.Files["index.html"])
	if want := fmt.Sprintf("documents/s over %s s with shards running (%s s from the first start to the last finish, of which %s s idle)",
		trimFloat(s.ActiveS), trimFloat(s.WallS), trimFloat(s.IdleS)); !strings.Contains(page, want) {
		t.Errorf("page does not say %q", want)
	}
}

// TestAccountingShardsAxis checks that the accounting draws failed and
// missing shards against an axis of shards, apart from the rows.
func TestAccountingShardsAxis(t *testing.T) {
	dir, shards := resumedRun(t)
	panels, s := reportPanels(t, dir, Options{Shards: shards})
	a := s.Accounting
	if a.ShardsFailed != 3 || a.ShardsMissing != 1 {
		t.Fatalf("failed/missing = %d/%d, want 3/1", a.ShardsFailed, a.ShardsMissing)
	}
	found := 0
	for _, p := range panels["accounting.png"] {
		for _, l := range majorLabels(p.Y) {
			isShards := strings.Contains(l, "fail") || strings.Contains(l, "missing") || l == "done"
			if isShards != (p.X.Label.Text == "shards") {
				t.Errorf("accounting: bar %q drawn on an axis of %s", l, p.X.Label.Text)
			}
			if isShards {
				found++
			}
		}
		if p.X.Label.Text == "shards" && p.X.Max < float64(s.ShardsTotal) {
			t.Errorf("accounting: shards axis ends at %v, before the run's %d shards", p.X.Max, s.ShardsTotal)
		}
	}
	if found != 3 {
		t.Errorf("accounting shows %d shard bars (done, failed, missing), want 3", found)
	}
}
