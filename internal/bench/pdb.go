package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/confind"
	"github.com/foldcorpus/foldcorpus/internal/curation"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1/pdbunits"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/pdbheader"
	"github.com/foldcorpus/foldcorpus/internal/selection"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus/pdbgolden"
)

// The PDB mirror as exp222 processed it (its README): entries scanned,
// core-hours (82 min of header scan and 161 min of generation on 60
// cores), and its documents' tokens (monomers, multimers).
const (
	mirrorEntries        = 195858
	exp222CoreHours      = 243.0
	exp222MirrorTokens   = 695.5e6 + 299.9e6
	pdbBenchGoalSpeedup  = 30.0
	pdbBenchGoalMirrorCH = 8.0
)

// pdbEntryTime is one entry's CPU here, by stage, in seconds (medians).
type pdbEntryTime struct {
	g                          pdbgolden.Line
	scan, read, curate, build  float64
	gemmi                      float64 // gemmi.read_structure here
	docs                       int
	tokens                     int64
	cost                       int64 // selection.EstCost
	total                      float64
	exp222Ratio, ourGemmiRatio float64
}

type pdbFlags struct {
	corpus, golden, rotlib, python string
	reps, groupRows                int
}

// PDB measures exp222's path per entry as foldcorpus runs it (read,
// curate and expand, ConFind and documents: contacts-v1 with
// units=chains,assembly1 curation=af3 max_chains=60), one thread, side by
// side with gemmi's read_structure of the same files run here, and sets
// it against exp222's own CPU per entry (the golden's timing, through
// gemmi's read measured there the same day). With the production-size
// library (--rotlib from tools/synth_rotlib.py) it projects the whole
// mirror's core-hours, and it shows the straggler tail: the largest
// entry's share of its row group's CPU, with the manifest's groups dealt
// by cost (selection.BalanceGroups) and in exp222's processing order.
func PDB(ctx context.Context, args []string) error {
	o, err := parsePDBFlags(args)
	if err != nil {
		return err
	}
	entries, err := readPDBGolden(o.golden)
	if err != nil {
		return err
	}
	lib, err := confind.Shared(o.rotlib)
	if err != nil {
		return err
	}
	gr, err := startGemmi(ctx, o.python)
	if err != nil {
		return err
	}
	defer gr.close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var times []pdbEntryTime
	for _, g := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := timePDBEntry(o, g, lib)
		if err != nil {
			return err
		}
		if t.gemmi, err = gr.read(filepath.Join(o.corpus, g.File), o.reps); err != nil {
			return err
		}
		t.gemmi /= 1e3
		times = append(times, t)
	}
	printPDBBench(o, gr.version, times)
	return nil
}

func parsePDBFlags(args []string) (pdbFlags, error) {
	fs := flag.NewFlagSet("pdb", flag.ContinueOnError)
	var o pdbFlags
	fs.StringVar(&o.corpus, "corpus", "../shared/corpus", "the corpus folder (the golden's file paths are relative to it)")
	fs.StringVar(&o.golden, "golden", "", "exp222's golden lines (default CORPUS/golden/pdb-curation/pdb-curation.jsonl)")
	fs.StringVar(&o.rotlib, "rotlib", "", "rotamer library folder (default CORPUS/golden/confind-mini-rotlib, the golden's; tools/synth_rotlib.py writes a production-size one)")
	fs.StringVar(&o.python, "python", python3, "Python with gemmi")
	fs.IntVar(&o.reps, "reps", 3, "timed runs per entry (the median is taken)")
	fs.IntVar(&o.groupRows, "group-rows", 6, "entries per row group for the straggler figure")
	if err := fs.Parse(args); err != nil {
		return o, usageError(err)
	}
	if o.golden == "" {
		o.golden = filepath.Join(o.corpus, "golden", "pdb-curation", "pdb-curation.jsonl")
	}
	if o.rotlib == "" {
		o.rotlib = filepath.Join(o.corpus, "golden", "confind-mini-rotlib")
	}
	if o.reps < 1 || o.groupRows < 1 {
		return o, fmt.Errorf("%w: --reps and --group-rows must be >= 1", ErrUsage)
	}
	return o, nil
}

// readPDBGolden reads the selected entries of a golden file.
func readPDBGolden(path string) ([]pdbgolden.Line, error) {
	lines, err := pdbgolden.Read(path)
	if err != nil {
		return nil, err
	}
	var out []pdbgolden.Line
	for _, l := range lines {
		if l.Selected() {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no selected entries", path)
	}
	return out, nil
}

// timePDBEntry times one entry's stages on this thread, o.reps times each
// (medians): the header scan, the read, curation with assembly 1, and the
// documents (ConFind and contacts-v1).
func timePDBEntry(o pdbFlags, g pdbgolden.Line, lib *confind.Library) (pdbEntryTime, error) {
	t := pdbEntryTime{g: g}
	path := filepath.Join(o.corpus, g.File)
	data, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	meta := pdbunits.Meta{PDBID: g.PDBID, ReleaseDate: g.Task.ReleaseDate, Resolution: g.Task.Resolution, Method: g.Task.Method}
	header := int(g.Metadata.NAssembly1ProteinChains)
	opt := pdbunits.Options{Library: lib, MaxChains: 60}
	var scans, reads, curates, builds []float64
	for range o.reps {
		c0 := threadCPU()
		if e := pdbheader.Scan(data, path); e.Error != nil {
			return t, fmt.Errorf("%s: scan: %s", g.File, *e.Error)
		}
		c1 := threadCPU()
		e, err := mmcif.ReadEntry(data)
		if err != nil {
			return t, fmt.Errorf("%s: %w", g.File, err)
		}
		c2 := threadCPU()
		res, err := curation.Curate(e, curation.Options{MaxChains: 60, HeaderChains: &header})
		if err != nil {
			return t, fmt.Errorf("%s: %w", g.File, err)
		}
		c3 := threadCPU()
		out, err := pdbunits.Build(res, meta, opt)
		if err != nil {
			return t, fmt.Errorf("%s: %w", g.File, err)
		}
		c4 := threadCPU()
		scans, reads = append(scans, secs(c1-c0)), append(reads, secs(c2-c1))
		curates, builds = append(curates, secs(c3-c2)), append(builds, secs(c4-c3))
		t.docs, t.tokens = 0, 0
		for _, u := range out.Units {
			if u.Row != nil {
				t.docs++
				t.tokens += int64(u.Row.Doc.NumTokens)
			}
		}
	}
	t.scan, t.read, t.curate, t.build = median(scans), median(reads), median(curates), median(builds)
	t.total = t.read + t.curate + t.build
	t.cost = selection.EstCost(g.Task.EstResidues, max(1, g.Metadata.NProteinAsymChains), g.Metadata.NAssembly1ProteinChains)
	return t, nil
}

func secs(d time.Duration) float64 { return d.Seconds() }

// printPDBBench prints the side-by-side figures.
func printPDBBench(o pdbFlags, gemmiVersion string, ts []pdbEntryTime) {
	var ours, gemmiHere, exp222, gemmiThere, scan, scanThere float64
	var tokens int64
	var docs int
	var stage [3]float64
	var perEntry []float64
	for i := range ts {
		t := &ts[i]
		ours += t.total
		gemmiHere += t.gemmi
		exp222 += t.g.Timing.ProcessCPU
		gemmiThere += t.g.Timing.GemmiRead
		scan += t.scan
		scanThere += t.g.Timing.ScanCPU
		tokens += t.tokens
		docs += t.docs
		stage[0], stage[1], stage[2] = stage[0]+t.read, stage[1]+t.curate, stage[2]+t.build
		if t.g.Timing.GemmiRead > 0 && t.gemmi > 0 && t.total > 0 {
			t.exp222Ratio = t.g.Timing.ProcessCPU / t.g.Timing.GemmiRead
			t.ourGemmiRatio = t.total / t.gemmi
			perEntry = append(perEntry, t.exp222Ratio/t.ourGemmiRatio)
		}
	}
	n := float64(len(ts))
	fmt.Printf("pdb: %d selected entries of %s, %d documents, library %s, %d reps (medians), one thread\n", len(ts), filepath.Base(o.golden), docs, o.rotlib, o.reps)
	fmt.Printf("  foldcorpus CPU per entry: %.2f ms (read %.2f, curate+assembly %.2f, ConFind+documents %.2f); header scan %.3f ms\n",
		1e3*ours/n, 1e3*stage[0]/n, 1e3*stage[1]/n, 1e3*stage[2]/n, 1e3*scan/n)
	fmt.Printf("  gemmi %s read_structure of the same files here: %.2f ms per entry; foldcorpus = %.2fx gemmi's read\n", gemmiVersion, 1e3*gemmiHere/n, ours/gemmiHere)
	if filepath.Base(filepath.Clean(o.rotlib)) != "confind-mini-rotlib" {
		fmt.Printf("  exp222's golden timing used the mini library: the side-by-side ratio is printed with --rotlib CORPUS/golden/confind-mini-rotlib only\n")
	} else if gemmiThere > 0 {
		expRatio := exp222 / gemmiThere
		speed := expRatio / (ours / gemmiHere)
		fmt.Printf("  exp222 (golden timing): %.1f ms per entry = %.1fx gemmi's read there (%.2f ms)\n", 1e3*exp222/n, expRatio, 1e3*gemmiThere/n)
		fmt.Printf("  side by side: exp222's path / foldcorpus, through gemmi's read = %.1fx less CPU per entry (goal %.0fx); per-entry median %.1fx\n",
			speed, pdbBenchGoalSpeedup, median(perEntry))
		fmt.Printf("  header scan: exp222 %.2f ms per entry, foldcorpus %.3f ms (through gemmi: %.0fx)\n", 1e3*scanThere/n, 1e3*scan/n,
			(scanThere/gemmiThere)/(scan/gemmiHere))
	}
	if tokens > 0 {
		// the mirror's generation from its tokens, at this set's CPU per
		// token; its scan at this set's scan CPU per entry
		gen := ours / float64(tokens) * exp222MirrorTokens
		sc := scan / n * mirrorEntries
		ch := (gen + sc) / 3600
		fmt.Printf("  mirror projection (%d entries, %.0f M tokens as exp222 wrote them): %.2f core-hours (generation %.2f, scan %.2f) vs exp222's %.0f (goal <= %.0f)\n",
			mirrorEntries, exp222MirrorTokens/1e6, ch, gen/3600, sc/3600, exp222CoreHours, pdbBenchGoalMirrorCH)
	}
	printPDBStragglers(o, ts)
}

// printPDBStragglers deals the entries into row groups by cost and in
// exp222's processing order and prints, for each, the costliest group's
// CPU against the mean and the largest entry's share of its group's CPU.
func printPDBStragglers(o pdbFlags, ts []pdbEntryTime) {
	tasks := make([]selection.PDBTask, len(ts))
	cpu := map[string]float64{}
	for i, t := range ts {
		tasks[i] = selection.PDBTask{PDBID: t.g.PDBID, EstResidues: t.g.Task.EstResidues, Cost: t.cost, ProcessingRank: int64(i)}
		cpu[t.g.PDBID] = t.total
	}
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].EstResidues > tasks[j].EstResidues })
	var inOrder [][]selection.PDBTask
	for lo := 0; lo < len(tasks); lo += o.groupRows {
		inOrder = append(inOrder, tasks[lo:min(len(tasks), lo+o.groupRows)])
	}
	for _, c := range []struct {
		name   string
		groups [][]selection.PDBTask
	}{{"dealt by cost", selection.BalanceGroups(tasks, o.groupRows)}, {"exp222's order", inOrder}} {
		var worst, total, share float64
		for _, g := range c.groups {
			var sum, big float64
			for _, t := range g {
				sum += cpu[t.PDBID]
				big = max(big, cpu[t.PDBID])
			}
			total += sum
			if sum > worst {
				worst, share = sum, big/sum
			}
		}
		mean := total / float64(len(c.groups))
		fmt.Printf("  row groups of %d entries, %s: costliest %.1f ms = %.2fx the mean; its largest entry is %.0f%% of it\n",
			o.groupRows, c.name, 1e3*worst, worst/mean, 100*share)
	}
}
