package bench

import (
	"fmt"
	"runtime"
	"strings"
)

// side is the side-by-side figures: the medians over its runs (the fewest
// identical documents of any), or nil without a run.
func (d *docsBench) side() *sideBySide {
	if len(d.sides) == 0 {
		return nil
	}
	s := d.sides[0]
	s.read, s.gen, s.total, s.perDoc = sideMedian(d.sides, func(s sideBySide) float64 { return s.read }),
		sideMedian(d.sides, func(s sideBySide) float64 { return s.gen }),
		sideMedian(d.sides, func(s sideBySide) float64 { return s.total }),
		sideMedian(d.sides, func(s sideBySide) float64 { return s.perDoc })
	for _, o := range d.sides[1:] {
		s.identical = min(s.identical, o.identical)
	}
	return &s
}

// report prints the medians: the legend, a row per stage against the
// quoted and side-by-side figures, and the per-document, throughput and
// allocation lines.
func (d *docsBench) report(s *docsSamples) {
	side := d.side()
	base := d.entry.quoted
	n := float64(len(d.ins))
	fmt.Printf("bench docs: format %s, %d inputs (%d documents), %.1f MB (%.0f KB average), %d reps, GOMAXPROCS %d; medians\n",
		d.o.name, len(d.ins), d.docs, float64(d.totalBytes)/1e6, float64(d.totalBytes)/n/1e3, d.o.reps, runtime.GOMAXPROCS(0))
	fmt.Print(`  docs/s/core = documents / process CPU seconds (GC workers on every core included); docs/s wall = documents / wall s
  read (parse)         one goroutine: mmcif.Read of every input, every result kept (a new structure each)
  generate             one goroutine: the format over the kept inputs
  read + generate      one goroutine: each input read into one reused structure, then generated; the
                       other cores idle, and the runtime's idle GC mark workers may run on them (counted)
  read + generate, N   N = GOMAXPROCS goroutines, each with its own reused structure, each doing every
  workers              input: no core idles, so docs/s/core is the rate per core at full load
  read + generate,     each input read and generated alone, timed by process CPU; each document's least
  per document         CPU in each group of 3 reps, the median over documents, then the median over groups
`)
	fmt.Printf("%-28s %12s %12s %9s %12s %7s %12s %7s\n", "stage", "docs/s/core", "docs/s wall", "ms/doc",
		"quoted/core", "ratio", "side/core", "ratio")
	var sr sideBySide
	if side != nil {
		sr = *side
	}
	docsRow("read (parse)", s.readRate, s.readWall, base.read, sr.read)
	docsRow("generate", s.genRate, s.genWall, base.gen, sr.gen)
	docsRow("read + generate", s.bothRate, s.bothWall, base.total, sr.total)
	docsRow(fmt.Sprintf("read + generate, %d workers", d.workers), s.parRate, s.parWall, base.total, 0)
	d.reportPerDocument(sr)
	fmt.Printf("read throughput: %.0f MB/s/core\n", median(s.readMB))
	fmt.Printf("allocations per document: read %.0f, generate %.1f (%.1f KB), read (reused structure) + generate %.1f\n",
		median(s.readAllocs), median(s.genAllocs), median(s.genBytes)/1e3, median(s.bothAllocs))
	if note := d.entry.note; note != "" {
		fmt.Println(note)
	}
	if side != nil {
		runs := ""
		if len(d.sides) > 1 {
			runs = fmt.Sprintf(" (the medians of %d runs; the fewest in any)", len(d.sides))
		}
		fmt.Printf("side by side: %s, run now on the same files%s; its documents are byte-identical to ours for %d of %d\n",
			side.what, runs, side.identical, side.compared)
	} else if d.entry.sideNeedsMarinFold && d.o.baselineReps > 0 {
		fmt.Println("side by side: none; --marinfold DIR (git clone https://github.com/Open-Athena/MarinFold) runs its generator here")
	}
}

// docsRow prints one stage's row: its median rate (and wall rate, where
// measured), set against the quoted and side-by-side rates where known
// (zero: not).
func docsRow(stage string, rate, wall []float64, quoted, sideRate float64) {
	r := median(rate)
	cols := [4]string{"-", "-", "-", "-"}
	if quoted > 0 {
		cols[0], cols[1] = fmt.Sprintf("%.1f", quoted), fmt.Sprintf("%.0fx", r/quoted)
	}
	if sideRate > 0 {
		cols[2], cols[3] = fmt.Sprintf("%.1f", sideRate), fmt.Sprintf("%.0fx", r/sideRate)
	}
	wallCol := "-"
	if len(wall) > 0 {
		wallCol = fmt.Sprintf("%.0f", median(wall))
	}
	fmt.Printf("%-28s %12.0f %12s %9.3f %12s %7s %12s %7s\n", stage, r, wallCol, 1e3/r, cols[0], cols[1], cols[2], cols[3])
}

// reportPerDocument prints the per-document row and each group's figure,
// and, with a side-by-side run after each group, the ratio in each.
func (d *docsBench) reportPerDocument(sr sideBySide) {
	perDocMs := docsPerDocument(d.perDocCPU, docsPerDocGroup)
	perDocQuoted := 0.0
	if d.entry.perDocQuote {
		perDocQuoted = d.entry.quoted.total
	}
	if len(perDocMs) == 0 {
		return
	}
	rates := make([]float64, len(perDocMs))
	for k, ms := range perDocMs {
		rates[k] = 1e3 / ms
	}
	docsRow("read + generate, per document", rates, nil, perDocQuoted, sr.perDoc)
	fmt.Printf("per document, each group of %d reps: %s ms\n", docsPerDocGroup, strings.Join(roundTo(perDocMs, 3), " "))
	if len(d.sides) == len(perDocMs) && len(d.sides) > 1 {
		ratios := make([]float64, len(d.sides))
		ref := make([]string, len(d.sides))
		for k, s := range d.sides {
			ratios[k] = 1e3 / perDocMs[k] / s.perDoc
			ref[k] = fmt.Sprintf("%.3f", 1/s.perDoc)
		}
		fmt.Printf("side by side, run after each group: %s s per document, ratios %s (median %.0fx)\n",
			strings.Join(ref, " "), strings.Join(roundTo(ratios, 0), "x ")+"x", median(ratios))
	}
}
