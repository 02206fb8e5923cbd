package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/cadv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/ccoordv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/cropsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/inline"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// docsBenchInput is one input of `bench docs`: its raw bytes are already in
// memory; read is the "read" stage (parse) that turns them into a format
// input, and is called once per repetition. readInto, when set, is read
// into a reused structure (the input is valid until the next readInto into
// st); record formats leave it nil and read is used.
type docsBenchInput struct {
	name     string
	bytes    int
	read     func() (format.Input, error)
	readInto func(st *structure.Structure) (format.Input, error)
}

// readReusing reads in into st where the input can be.
func (in docsBenchInput) readReusing(st *structure.Structure) (format.Input, error) {
	if in.readInto == nil {
		return in.read()
	}
	return in.readInto(st)
}

// docsFormat is what `bench docs` knows of one format: how to load its
// inputs from the command line's DIR, the reference's quoted speed
// (docs/s/core; zero: not quoted) and where it comes from, and the
// side-by-side baseline run in the same invocation (nil: none).
type docsFormat struct {
	load   func(dir string) ([]docsBenchInput, error)
	quoted struct{ total, read, gen float64 }
	note   string
	side   func(ctx context.Context, f format.Format, ins []docsBenchInput, sa sideArgs) (sideBySide, error)
	// sideNeedsMarinFold says that side runs MarinFold's own generator
	// from a checkout named by --marinfold, and is skipped without one;
	// it runs after each group of docsPerDocGroup reps, so that each
	// group's per-document figure has its own beside it.
	sideNeedsMarinFold bool
	// build, when set, builds the format for DIR instead of the registry
	// (the coordinate formats: their degrees replayed from records).
	build func(dir string, opts map[string]string) (format.Format, error)
	// perDocQuote says that quoted.total is a median over documents of
	// each one's least CPU over a few passes (the coordinate formats'
	// figures), so the per-document row is set against it as well.
	perDocQuote bool
}

// docsFormats maps a format name to its bench entry; each format's entry
// lives in its own file.
func docsFormats() map[string]docsFormat {
	return map[string]docsFormat{cadv2.Name: cadv2Docs, contactsv1.Name: contactsV1Docs,
		ccoordv1.Name: ccoordDocs, cropsv1.Name: cropsDocs}
}

// loadStructureInputs loads every *.cif / *.cif.gz file under dir; the read
// stage is mmcif.Read (or mmcif.ReadInto) plus the entry_id.
func loadStructureInputs(dir string) ([]docsBenchInput, error) {
	var ins []docsBenchInput
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".cif") || strings.HasSuffix(path, ".cif.gz")) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		ins = append(ins, docsBenchInput{name: path, bytes: len(data), read: func() (format.Input, error) {
			s, err := mmcif.Read(data)
			if err != nil {
				return format.Input{}, fmt.Errorf("%s: %w", path, err)
			}
			return format.Input{EntryID: cadv2.EntryID(s.Name, path), Structure: s}, nil
		}, readInto: func(st *structure.Structure) (format.Input, error) {
			if err := mmcif.ReadInto(st, data); err != nil {
				return format.Input{}, fmt.Errorf("%s: %w", path, err)
			}
			return format.Input{EntryID: cadv2.EntryID(st.Name, path), Structure: st}, nil
		}})
		return nil
	})
	return ins, err
}

// docsStageStats are one repetition's costs of one stage over all inputs.
type docsStageStats struct {
	wall, cpu time.Duration
	mallocs   uint64
	bytes     uint64
}

// measure runs fn once and returns its wall time, process CPU time (GC
// workers on other cores included) and heap allocations.
func docsMeasure(fn func() error) (docsStageStats, error) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0, t0 := processCPU(), time.Now()
	err := fn()
	wall, cpu := time.Since(t0), processCPU()-c0
	runtime.ReadMemStats(&m1)
	return docsStageStats{wall: wall, cpu: cpu, mallocs: m1.Mallocs - m0.Mallocs, bytes: m1.TotalAlloc - m0.TotalAlloc}, err
}

func Docs(ctx context.Context, args []string) error {
	fset := flag.NewFlagSet("bench docs", flag.ContinueOnError)
	name := fset.String("format", cadv2.Name, "format to benchmark: one of "+strings.Join(docsSortedKeys(docsFormats()), ", "))
	reps := fset.Int("reps", 15, "repetitions of each stage over all inputs; medians are reported")
	profile := fset.String("cpuprofile", "", "write a CPU profile of the measured stages to this file")
	baselineReps := fset.Int("baseline-reps", 3, "passes of the side-by-side baseline, where the format has one (0: skip it)")
	marinfold := fset.String("marinfold", "", "a checkout of Open-Athena/MarinFold: the coordinate formats' side-by-side baseline runs its generator (pyconfind's degrees replayed)")
	opts := optFlag{}
	fset.Var(opts, "opt", "format knob key=value (repeatable)")
	fset.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: foldcorpus-bench docs [--format F] [--reps N] DIR   (e.g. ../shared/corpus/afdb)")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		return usageError(err)
	}
	if fset.NArg() != 1 || *reps < 1 {
		fset.Usage()
		return usageError(fmt.Errorf("need one DIR and --reps >= 1"))
	}
	entry, ok := docsFormats()[*name]
	load := entry.load
	if !ok {
		return usageError(fmt.Errorf("no bench loader for format %q", *name))
	}
	var f format.Format
	var err error
	if entry.build != nil {
		f, err = entry.build(fset.Arg(0), opts)
	} else {
		f, err = inline.New(*name, opts)
	}
	if err != nil {
		return usageError(err)
	}
	ins, err := load(fset.Arg(0))
	if err != nil {
		return err
	}
	if len(ins) == 0 {
		return fmt.Errorf("no inputs for %s under %s", *name, fset.Arg(0))
	}
	totalBytes := 0
	for _, in := range ins {
		totalBytes += in.bytes
	}
	parsed := make([]format.Input, len(ins))
	readAll := func() error {
		for i, in := range ins {
			p, err := in.read()
			if err != nil {
				return err
			}
			parsed[i] = p
		}
		return nil
	}
	docs := 0
	genAll := func() error {
		docs = 0
		for _, in := range parsed {
			res, err := f.Generate(in)
			if err != nil {
				return fmt.Errorf("%s: %w", in.EntryID, err)
			}
			if res.Filtered == "" {
				docs++
			}
		}
		return nil
	}
	// both reads every input into one reused structure and generates it.
	var reused structure.Structure
	both := func() error { return docsReadGenerate(f, ins, &reused) }
	// parallel runs both on every core at once: each worker has its own
	// structure and does every input.
	workers := runtime.GOMAXPROCS(0)
	workerSt := make([]structure.Structure, workers)
	parallel := func() error {
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { errs[w] = docsReadGenerate(f, ins, &workerSt[w]) })
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	// perDoc times each input alone (read into the reused structure, then
	// generated) by process CPU, one rep's figures per call in perDocCPU
	// (zero for a filtered input: only documents count).
	var perDocCPU [][]time.Duration
	perDoc := func() error {
		cpu := make([]time.Duration, len(ins))
		for i, in := range ins {
			c0 := processCPU()
			p, err := in.readReusing(&reused)
			if err != nil {
				return err
			}
			res, err := f.Generate(p)
			c := processCPU() - c0
			if err != nil {
				return fmt.Errorf("%s: %w", in.name, err)
			}
			if res.Filtered == "" {
				cpu[i] = c
			}
		}
		perDocCPU = append(perDocCPU, cpu)
		return nil
	}
	// runSide runs the side-by-side baseline once, where there is one:
	// after each group of reps when interleaved, else once at the end.
	var sides []sideBySide
	runSide := func() error {
		if entry.side == nil || *baselineReps == 0 || (entry.sideNeedsMarinFold && *marinfold == "") {
			return nil
		}
		s, err := entry.side(ctx, f, ins, sideArgs{reps: *baselineReps, dir: fset.Arg(0), marinfold: *marinfold})
		if err != nil {
			return err
		}
		sides = append(sides, s)
		return nil
	}
	interleaved := entry.sideNeedsMarinFold && *marinfold != "" && *baselineReps > 0
	if err := readAll(); err != nil { // warm up (and fail early on bad inputs)
		return err
	}
	if err := genAll(); err != nil {
		return err
	}
	if *profile != "" {
		pf, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	n := float64(len(ins))
	var readRate, genRate, bothRate, parRate, readWall, genWall, bothWall, parWall, readMB []float64
	var readAllocs, genAllocs, genBytes, bothAllocs []float64
	for range *reps {
		if err := ctx.Err(); err != nil {
			return err
		}
		rs, err := docsMeasure(readAll)
		if err != nil {
			return err
		}
		gs, err := docsMeasure(genAll)
		if err != nil {
			return err
		}
		bs, err := docsMeasure(both)
		if err != nil {
			return err
		}
		ps, err := docsMeasure(parallel)
		if err != nil {
			return err
		}
		if err := perDoc(); err != nil {
			return err
		}
		if interleaved && len(perDocCPU)%docsPerDocGroup == 0 {
			if err := runSide(); err != nil {
				return err
			}
		}
		parRate = append(parRate, n*float64(workers)/ps.cpu.Seconds())
		parWall = append(parWall, n*float64(workers)/ps.wall.Seconds())
		bothAllocs = append(bothAllocs, float64(bs.mallocs)/n)
		readRate = append(readRate, n/rs.cpu.Seconds())
		genRate = append(genRate, n/gs.cpu.Seconds())
		bothRate = append(bothRate, n/bs.cpu.Seconds())
		readWall = append(readWall, n/rs.wall.Seconds())
		genWall = append(genWall, n/gs.wall.Seconds())
		bothWall = append(bothWall, n/bs.wall.Seconds())
		readMB = append(readMB, float64(totalBytes)/1e6/rs.cpu.Seconds())
		readAllocs = append(readAllocs, float64(rs.mallocs)/n)
		genAllocs = append(genAllocs, float64(gs.mallocs)/n)
		genBytes = append(genBytes, float64(gs.bytes)/n)
	}
	if *profile != "" {
		pprof.StopCPUProfile()
	}
	// the run at the end: the only one, or the one beside a short last
	// group (or beside none, with no reps)
	if !interleaved || len(perDocCPU)%docsPerDocGroup != 0 || len(sides) == 0 {
		if err := runSide(); err != nil {
			return err
		}
	}
	var side *sideBySide
	if len(sides) > 0 {
		s := sides[0]
		s.read, s.gen, s.total, s.perDoc = sideMedian(sides, func(s sideBySide) float64 { return s.read }),
			sideMedian(sides, func(s sideBySide) float64 { return s.gen }),
			sideMedian(sides, func(s sideBySide) float64 { return s.total }),
			sideMedian(sides, func(s sideBySide) float64 { return s.perDoc })
		for _, o := range sides[1:] {
			s.identical = min(s.identical, o.identical)
		}
		side = &s
	}
	base := entry.quoted
	fmt.Printf("bench docs: format %s, %d inputs (%d documents), %.1f MB (%.0f KB average), %d reps, GOMAXPROCS %d; medians\n",
		*name, len(ins), docs, float64(totalBytes)/1e6, float64(totalBytes)/n/1e3, *reps, runtime.GOMAXPROCS(0))
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
	row := func(stage string, rate, wall []float64, quoted, sideRate float64) {
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
	var sr sideBySide
	if side != nil {
		sr = *side
	}
	row("read (parse)", readRate, readWall, base.read, sr.read)
	row("generate", genRate, genWall, base.gen, sr.gen)
	row("read + generate", bothRate, bothWall, base.total, sr.total)
	row(fmt.Sprintf("read + generate, %d workers", workers), parRate, parWall, base.total, 0)
	perDocMs := docsPerDocument(perDocCPU, docsPerDocGroup)
	perDocQuoted := 0.0
	if entry.perDocQuote {
		perDocQuoted = base.total
	}
	if len(perDocMs) > 0 {
		rates := make([]float64, len(perDocMs))
		for k, ms := range perDocMs {
			rates[k] = 1e3 / ms
		}
		row("read + generate, per document", rates, nil, perDocQuoted, sr.perDoc)
		fmt.Printf("per document, each group of %d reps: %s ms\n", docsPerDocGroup, strings.Join(roundTo(perDocMs, 3), " "))
		if len(sides) == len(perDocMs) && len(sides) > 1 {
			ratios := make([]float64, len(sides))
			ref := make([]string, len(sides))
			for k, s := range sides {
				ratios[k] = 1e3 / perDocMs[k] / s.perDoc
				ref[k] = fmt.Sprintf("%.3f", 1/s.perDoc)
			}
			fmt.Printf("side by side, run after each group: %s s per document, ratios %s (median %.0fx)\n",
				strings.Join(ref, " "), strings.Join(roundTo(ratios, 0), "x ")+"x", median(ratios))
		}
	}
	fmt.Printf("read throughput: %.0f MB/s/core\n", median(readMB))
	fmt.Printf("allocations per document: read %.0f, generate %.1f (%.1f KB), read (reused structure) + generate %.1f\n",
		median(readAllocs), median(genAllocs), median(genBytes)/1e3, median(bothAllocs))
	if note := entry.note; note != "" {
		fmt.Println(note)
	}
	if side != nil {
		runs := ""
		if len(sides) > 1 {
			runs = fmt.Sprintf(" (the medians of %d runs; the fewest in any)", len(sides))
		}
		fmt.Printf("side by side: %s, run now on the same files%s; its documents are byte-identical to ours for %d of %d\n",
			side.what, runs, side.identical, side.compared)
	} else if entry.sideNeedsMarinFold && *baselineReps > 0 {
		fmt.Println("side by side: none; --marinfold DIR (git clone https://github.com/Open-Athena/MarinFold) runs its generator here")
	}
	return nil
}

// docsPerDocGroup is how many passes each document's least CPU is taken
// over: the reference's figures kept the least of 3 timings per file.
const docsPerDocGroup = 3

// docsPerDocument is the reference's statistic over each group of group
// consecutive reps (the last group may be short; fewer reps make one):
// each document's least CPU in the group, then the median over documents,
// in ms, one figure per group. Inputs with a zero figure (filtered) are
// left out.
func docsPerDocument(reps [][]time.Duration, group int) []float64 {
	var out []float64
	for g := 0; g < len(reps); g += group {
		rs := reps[g:min(g+group, len(reps))]
		var best []float64
		for i := range rs[0] {
			b := rs[0][i]
			for _, r := range rs[1:] {
				b = min(b, r[i])
			}
			if b > 0 {
				best = append(best, b.Seconds()*1e3)
			}
		}
		if len(best) > 0 {
			out = append(out, median(best))
		}
	}
	return out
}

// docsReadGenerate reads every input into st (reused) and generates it.
func docsReadGenerate(f format.Format, ins []docsBenchInput, st *structure.Structure) error {
	for _, in := range ins {
		p, err := in.readReusing(st)
		if err != nil {
			return err
		}
		if _, err := f.Generate(p); err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
	}
	return nil
}

func docsSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sideMedian is the median of one figure over the side-by-side runs.
func sideMedian(sides []sideBySide, fig func(sideBySide) float64) float64 {
	v := make([]float64, len(sides))
	for i, s := range sides {
		v[i] = fig(s)
	}
	return median(v)
}
