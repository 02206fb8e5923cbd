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
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordinatesv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/cropsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/distancesv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/inprocess"
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
	return map[string]docsFormat{distancesv2.Name: cadv2Docs, contactsv1.Name: contactsV1Docs,
		coordinatesv1.Name: ccoordDocs, cropsv1.Name: cropsDocs}
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
			return format.Input{EntryID: distancesv2.EntryID(s.Name, path), Structure: s}, nil
		}, readInto: func(st *structure.Structure) (format.Input, error) {
			if err := mmcif.ReadInto(st, data); err != nil {
				return format.Input{}, fmt.Errorf("%s: %w", path, err)
			}
			return format.Input{EntryID: distancesv2.EntryID(st.Name, path), Structure: st}, nil
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

// Docs runs `bench docs`: documents per second per core of one format
// over a folder of inputs, split into its stages (read, generate, both, on
// every core, per document), set against the reference's quoted figures
// and, where the format has one, a side-by-side baseline run here.
func Docs(ctx context.Context, args []string) error {
	o, err := parseDocsFlags(args)
	if err != nil {
		return err
	}
	d, err := newDocsBench(ctx, o)
	if err != nil {
		return err
	}
	if err := d.readAll(); err != nil { // warm up (and fail early on bad inputs)
		return err
	}
	if err := d.genAll(); err != nil {
		return err
	}
	stop, err := startCPUProfile(o.profile)
	if err != nil {
		return err
	}
	defer stop()
	s, err := d.measure()
	if err != nil {
		return err
	}
	if o.profile != "" {
		pprof.StopCPUProfile()
	}
	// the run at the end: the only one, or the one beside a short last
	// group (or beside none, with no reps)
	if !d.interleaved || len(d.perDocCPU)%docsPerDocGroup != 0 || len(d.sides) == 0 {
		if err := d.runSide(); err != nil {
			return err
		}
	}
	d.report(s)
	return nil
}

// docsOptions is the command line of `bench docs`.
type docsOptions struct {
	name         string // the format
	reps         int
	profile      string // --cpuprofile: "" for none
	baselineReps int
	marinfold    string // a MarinFold checkout, or ""
	opts         optFlag
	dir          string // the inputs
}

// parseDocsFlags reads the command line of `bench docs`.
func parseDocsFlags(args []string) (docsOptions, error) {
	fset := flag.NewFlagSet("bench docs", flag.ContinueOnError)
	name := fset.String("format", distancesv2.Name, "format to benchmark: one of "+strings.Join(docsSortedKeys(docsFormats()), ", "))
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
		return docsOptions{}, usageError(err)
	}
	if fset.NArg() != 1 || *reps < 1 {
		fset.Usage()
		return docsOptions{}, usageError(fmt.Errorf("need one DIR and --reps >= 1"))
	}
	return docsOptions{name: *name, reps: *reps, profile: *profile, baselineReps: *baselineReps,
		marinfold: *marinfold, opts: opts, dir: fset.Arg(0)}, nil
}

// docsBench is one `bench docs` run: the format, its inputs, and what the
// measured stages leave behind.
type docsBench struct {
	ctx        context.Context
	o          docsOptions
	entry      docsFormat
	f          format.Format
	ins        []docsBenchInput
	totalBytes int
	parsed     []format.Input // readAll's results, which genAll generates
	docs       int            // the documents of the last genAll (inputs not filtered)
	reused     structure.Structure
	workers    int                   // parallel's goroutines: GOMAXPROCS
	workerSt   []structure.Structure // each worker's reused structure
	// perDocCPU has perDoc's figures, one rep's per call (zero for a
	// filtered input: only documents count).
	perDocCPU [][]time.Duration
	sides     []sideBySide // the side-by-side runs so far
	// interleaved says that the side-by-side baseline runs after each
	// group of docsPerDocGroup reps rather than once at the end.
	interleaved bool
}

// newDocsBench builds the format named by o and loads its inputs.
func newDocsBench(ctx context.Context, o docsOptions) (*docsBench, error) {
	entry, ok := docsFormats()[o.name]
	load := entry.load
	if !ok {
		return nil, usageError(fmt.Errorf("no bench loader for format %q", o.name))
	}
	var f format.Format
	var err error
	if entry.build != nil {
		f, err = entry.build(o.dir, o.opts)
	} else {
		f, err = inprocess.New(o.name, o.opts)
	}
	if err != nil {
		return nil, usageError(err)
	}
	ins, err := load(o.dir)
	if err != nil {
		return nil, err
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("no inputs for %s under %s", o.name, o.dir)
	}
	d := &docsBench{ctx: ctx, o: o, entry: entry, f: f, ins: ins, parsed: make([]format.Input, len(ins)),
		workers: runtime.GOMAXPROCS(0)}
	for _, in := range ins {
		d.totalBytes += in.bytes
	}
	d.workerSt = make([]structure.Structure, d.workers)
	d.interleaved = entry.sideNeedsMarinFold && o.marinfold != "" && o.baselineReps > 0
	return d, nil
}

// readAll reads every input, each result kept in d.parsed.
func (d *docsBench) readAll() error {
	for i, in := range d.ins {
		p, err := in.read()
		if err != nil {
			return err
		}
		d.parsed[i] = p
	}
	return nil
}

// genAll generates every input of d.parsed, counting the documents.
func (d *docsBench) genAll() error {
	d.docs = 0
	for _, in := range d.parsed {
		res, err := d.f.Generate(in)
		if err != nil {
			return fmt.Errorf("%s: %w", in.EntryID, err)
		}
		if res.Filtered == "" {
			d.docs++
		}
	}
	return nil
}

// both reads every input into one reused structure and generates it.
func (d *docsBench) both() error { return docsReadGenerate(d.f, d.ins, &d.reused) }

// parallel runs both on every core at once: each worker has its own
// structure and does every input.
func (d *docsBench) parallel() error {
	errs := make([]error, d.workers)
	var wg sync.WaitGroup
	for w := range d.workers {
		wg.Go(func() { errs[w] = docsReadGenerate(d.f, d.ins, &d.workerSt[w]) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// perDoc times each input alone (read into the reused structure, then
// generated) by process CPU, one rep's figures per call in d.perDocCPU.
func (d *docsBench) perDoc() error {
	cpu := make([]time.Duration, len(d.ins))
	for i, in := range d.ins {
		c0 := processCPU()
		p, err := in.readReusing(&d.reused)
		if err != nil {
			return err
		}
		res, err := d.f.Generate(p)
		c := processCPU() - c0
		if err != nil {
			return fmt.Errorf("%s: %w", in.name, err)
		}
		if res.Filtered == "" {
			cpu[i] = c
		}
	}
	d.perDocCPU = append(d.perDocCPU, cpu)
	return nil
}

// runSide runs the side-by-side baseline once, where there is one (and
// it is not skipped): after each group of reps when interleaved, else
// once at the end.
func (d *docsBench) runSide() error {
	if d.entry.side == nil || d.o.baselineReps == 0 || (d.entry.sideNeedsMarinFold && d.o.marinfold == "") {
		return nil
	}
	s, err := d.entry.side(d.ctx, d.f, d.ins, sideArgs{reps: d.o.baselineReps, dir: d.o.dir, marinfold: d.o.marinfold})
	if err != nil {
		return err
	}
	d.sides = append(d.sides, s)
	return nil
}

// startCPUProfile starts a CPU profile into path ("": none) and returns
// what stops it and closes its file.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	pf, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(pf); err != nil {
		pf.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		pf.Close()
	}, nil
}

// docsSamples are each stage's figures, one per rep: rates (docs/s/core),
// wall rates (docs/s), read MB/s/core, and allocations (and bytes) per
// input.
type docsSamples struct {
	readRate, genRate, bothRate, parRate        []float64
	readWall, genWall, bothWall, parWall        []float64
	readMB                                      []float64
	readAllocs, genAllocs, genBytes, bothAllocs []float64
}

// measure runs the reps: each stage over all inputs, then each input
// alone, then (interleaved) the side-by-side baseline after each group.
func (d *docsBench) measure() (*docsSamples, error) {
	s := &docsSamples{}
	for range d.o.reps {
		if err := d.ctx.Err(); err != nil {
			return nil, err
		}
		rs, err := docsMeasure(d.readAll)
		if err != nil {
			return nil, err
		}
		gs, err := docsMeasure(d.genAll)
		if err != nil {
			return nil, err
		}
		bs, err := docsMeasure(d.both)
		if err != nil {
			return nil, err
		}
		ps, err := docsMeasure(d.parallel)
		if err != nil {
			return nil, err
		}
		if err := d.perDoc(); err != nil {
			return nil, err
		}
		if d.interleaved && len(d.perDocCPU)%docsPerDocGroup == 0 {
			if err := d.runSide(); err != nil {
				return nil, err
			}
		}
		s.add(float64(len(d.ins)), d.workers, d.totalBytes, rs, gs, bs, ps)
	}
	return s, nil
}

// add records one rep's stages over n inputs: read (rs), generate (gs),
// both (bs) and parallel on workers goroutines (ps).
func (s *docsSamples) add(n float64, workers, totalBytes int, rs, gs, bs, ps docsStageStats) {
	s.parRate = append(s.parRate, n*float64(workers)/ps.cpu.Seconds())
	s.parWall = append(s.parWall, n*float64(workers)/ps.wall.Seconds())
	s.bothAllocs = append(s.bothAllocs, float64(bs.mallocs)/n)
	s.readRate = append(s.readRate, n/rs.cpu.Seconds())
	s.genRate = append(s.genRate, n/gs.cpu.Seconds())
	s.bothRate = append(s.bothRate, n/bs.cpu.Seconds())
	s.readWall = append(s.readWall, n/rs.wall.Seconds())
	s.genWall = append(s.genWall, n/gs.wall.Seconds())
	s.bothWall = append(s.bothWall, n/bs.wall.Seconds())
	s.readMB = append(s.readMB, float64(totalBytes)/1e6/rs.cpu.Seconds())
	s.readAllocs = append(s.readAllocs, float64(rs.mallocs)/n)
	s.genAllocs = append(s.genAllocs, float64(gs.mallocs)/n)
	s.genBytes = append(s.genBytes, float64(gs.bytes)/n)
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
