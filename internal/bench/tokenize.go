package bench

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// Reference figures quoted from ../shared/reference/zephyr-pipeline-performance.txt
// and bio2token-v2.md (exp40); not measured here.
const (
	exp40ChipAtomsPerSec = 20300 // one v6e chip, steady state
	exp40ChipsUsed       = 1     // of 4 on the VM
	exp40CPUMsPerAtom    = 0.19  // PyTorch, 1 thread
	exp40Compiles        = 7
	// Projection assumptions (TPU v6e public figures).
	v6eHBMBytesPerSec = 1640e9
	v6eChipsPerHost   = 4
)

// Tokenize runs `bench tokenize`: the bio2token-v2 encoder's padding
// efficiency over the AFDB length distribution, its CPU throughput on this
// machine per bucket beside the sequential reference, and a TPU host's
// projection from those figures (not measured).
func Tokenize(ctx context.Context, args []string) error {
	o, err := parseTokenizeFlags(args)
	if err != nil {
		return err
	}
	inputs, atoms, err := loadTokenizeInputs(o.corpusDir)
	if err != nil {
		return err
	}
	fmt.Printf("bench tokenize: %d AFDB structures, %d..%d kept atoms (median %d)\n", len(atoms), minInt(atoms), maxInt(atoms), medianInt(atoms))
	draw, chosen := reportPadding(o, atoms)

	// CPU throughput, measured.
	w, err := neural.LoadWeights(o.weights)
	if err != nil {
		return err
	}
	backend, err := neural.NewBackend(o.backend)
	if err != nil {
		return err
	}
	enc, err := neural.NewEncoder(backend, w)
	if err != nil {
		return err
	}
	label := "official checkpoint"
	if strings.HasPrefix(o.weights, "generated:") {
		label = "generated weights (same shapes and cost as the official ones)"
	}
	fmt.Printf("\nmeasured on this machine: backend %q, full-size encoder (%d parameters, %s), %d timed reps after one warm-up, median:\n", o.backend, w.NumParams(), label, o.reps)
	var timings []tokenizeTiming
	for _, f := range strings.Split(o.buckets, ",") {
		t, err := timeBucket(ctx, o, enc, inputs, f)
		if err != nil {
			return err
		}
		timings = append(timings, t)
	}
	referenceBaseline(w, inputs, atoms)
	eff := windowEfficiency(chosen, draw, o.shardRows*16)
	bw := memBandwidth()
	fmt.Printf("  this machine's memory copy bandwidth: %.1f GB/s (measured)\n", bw/1e9)
	for _, t := range timings {
		fmt.Printf("  => bucket %d: %.0f real atoms/s on this CPU at the AFDB padding efficiency %.3f\n", t.shape.Length, t.paddedPerS*eff, eff)
	}
	reportTPUProjection(timings, eff, bw, len(chosen))
	return nil
}

// tokenizeOptions is the command line of `bench tokenize`.
type tokenizeOptions struct {
	corpusDir, weights, backend, buckets string
	reps, rungs, stream, shardRows       int
	batchRows                            int // 0: bio2token.BatchSize of the bucket
}

// parseTokenizeFlags reads the command line of `bench tokenize`.
func parseTokenizeFlags(args []string) (tokenizeOptions, error) {
	fs := flag.NewFlagSet("bench tokenize", flag.ContinueOnError)
	corpusDir := fs.String("corpus", "../shared/corpus", "corpus folder (its afdb/ files give the length distribution and the coordinates)")
	weights := fs.String("weights", "generated:1", "checkpoint path or generated:SEED")
	backendSpec := fs.String("backend", "go", "GoMLX backend")
	bucketsFlag := fs.String("buckets", "256", "comma-separated buckets to time on this machine (full batches)")
	reps := fs.Int("reps", 3, "timed repetitions per bucket (median reported)")
	rungs := fs.Int("rungs", b2t.DefaultRungs, "ladder rungs per octave for the job")
	stream := fs.Int("stream", 20000, "structures drawn from the AFDB length distribution for the padding simulation")
	shardRows := fs.Int("shard-rows", 100, "rows per shard (for the per-shard batching comparison)")
	batchRows := fs.Int("batch", 0, "rows of each timed batch (0: bio2token.BatchSize of the bucket, the shape the job runs; fewer time a smaller program on a slow machine)")
	if err := fs.Parse(args); err != nil {
		return tokenizeOptions{}, usageError(err)
	}
	if *reps < 1 || *stream < 1 || *shardRows < 1 || *batchRows < 0 {
		return tokenizeOptions{}, usageError(fmt.Errorf("-reps, -stream and -shard-rows must be positive, -batch at least 0"))
	}
	return tokenizeOptions{corpusDir: *corpusDir, weights: *weights, backend: *backendSpec, buckets: *bucketsFlag,
		reps: *reps, rungs: *rungs, stream: *stream, shardRows: *shardRows, batchRows: *batchRows}, nil
}

// loadTokenizeInputs reads the AFDB files under corpusDir/afdb into the
// encoder's inputs, and returns each one's kept atoms.
func loadTokenizeInputs(corpusDir string) ([]*b2t.Input, []int, error) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "afdb", "*.cif"))
	if err != nil || len(files) == 0 {
		return nil, nil, fmt.Errorf("no AFDB files under %s/afdb (set -corpus)", corpusDir)
	}
	sort.Strings(files)
	var inputs []*b2t.Input
	var atoms []int
	for _, f := range files {
		s, err := mmcif.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		in, err := b2t.Adapt(s)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		inputs = append(inputs, in)
		atoms = append(atoms, in.NumAtoms())
	}
	return inputs, atoms, nil
}

// reportPadding prints the padding efficiency (pure planning, no encoder)
// of exp40's ladder and the job's over o.stream structures drawn from the
// corpus's atom counts, and returns the draw and the job's ladder.
func reportPadding(o tokenizeOptions, atoms []int) (draw, chosen []int) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw = make([]int, o.stream)
	for i := range draw {
		draw[i] = atoms[rng.IntN(len(atoms))]
	}
	chosen = b2t.Ladder(o.rungs)
	fmt.Printf("\npadding efficiency = real atoms / padded atoms (empty rows of partial batches count as padding), %d structures drawn from the corpus distribution:\n", o.stream)
	fmt.Printf("  %-34s %8s %10s %10s %16s %10s\n", "ladder", "programs", "rows only", "per shard", "16 shards/window", "unbounded")
	for _, l := range []struct {
		name   string
		ladder []int
	}{
		{"exp40: 256,512,...,16384", b2t.Ladder(1)},
		{fmt.Sprintf("tpujob: %d rungs/octave", o.rungs), chosen},
	} {
		fmt.Printf("  %-34s %8d %10.3f %10.3f %16.3f %10.3f\n", l.name, len(l.ladder), rowEfficiency(l.ladder, draw),
			windowEfficiency(l.ladder, draw, o.shardRows), windowEfficiency(l.ladder, draw, o.shardRows*16), windowEfficiency(l.ladder, draw, len(draw)))
	}
	fmt.Printf("  (rows only: bucket fit alone; per shard: each shard of %d rows batched alone; 16 shards/window: tpujob's scheduler filling batches\n", o.shardRows)
	fmt.Println("   from 16 in-flight shards, partial batches flushed after each window; unbounded: the whole stream at once. Batch rows per bucket: bio2token.BatchSize)")
	return draw, chosen
}

// tokenizeTiming is one bucket's measured encoder figures.
type tokenizeTiming struct {
	shape       b2t.Shape
	sec         float64 // median wall seconds per batch
	paddedPerS  float64 // padded atoms per wall second
	cost        neural.GraphCost
	bytesPerSec float64 // the graph's unfused traffic per wall second
}

// timeBucket compiles the encoder for the bucket named by field (of
// --buckets) and times full batches of it: o.reps runs after a warm-up,
// the medians printed and returned.
func timeBucket(ctx context.Context, o tokenizeOptions, enc *neural.Encoder, inputs []*b2t.Input, field string) (tokenizeTiming, error) {
	bucket, err := strconv.Atoi(strings.TrimSpace(field))
	if err != nil || bucket <= 0 {
		return tokenizeTiming{}, usageError(fmt.Errorf("bad bucket %q", field))
	}
	s := b2t.ShapeFor(bucket)
	if o.batchRows > 0 {
		s.Batch = o.batchRows
	}
	coords, lengths := fullBatch(inputs, s)
	start := time.Now()
	if err := enc.Compile(s); err != nil {
		return tokenizeTiming{}, err
	}
	compile := time.Since(start)
	var secs, cpus []float64
	for r := 0; r <= o.reps; r++ {
		if err := ctx.Err(); err != nil {
			return tokenizeTiming{}, err
		}
		t0, c0 := time.Now(), processCPU().Seconds()
		if _, err := enc.Run(0, s, coords, lengths); err != nil {
			return tokenizeTiming{}, err
		}
		if r > 0 {
			secs = append(secs, time.Since(t0).Seconds())
			cpus = append(cpus, processCPU().Seconds()-c0)
		}
	}
	sort.Float64s(secs)
	sort.Float64s(cpus)
	med := secs[len(secs)/2]
	medCPU := cpus[len(cpus)/2]
	cost, err := enc.Cost(s)
	if err != nil {
		return tokenizeTiming{}, err
	}
	t := tokenizeTiming{s, med, float64(s.Batch*s.Length) / med, cost, float64(cost.Bytes) / med}
	fmt.Printf("  bucket %5d, batch %2d: compile %.3fs, %.2fs/batch wall (%.2f CPU-s), %.0f padded atoms/s wall (%.0f per CPU-second); graph %d nodes, %.1f KB unfused traffic per atom (%.2f GB/s achieved)\n",
		bucket, s.Batch, compile.Seconds(), med, medCPU, t.paddedPerS, float64(s.Batch*s.Length)/medCPU, cost.Nodes, float64(cost.Bytes)/float64(s.Batch*s.Length)/1e3, t.bytesPerSec/1e9)
	return t, nil
}

// referenceBaseline times the side-by-side baseline, the float64
// sequential reference, on one row (up to 256 atoms of the first input
// that has them) and prints it beside exp40's quoted CPU figure.
func referenceBaseline(w *b2t.Weights, inputs []*b2t.Input, atoms []int) {
	n := min(256, maxInt(atoms))
	ref := inputs[0]
	for _, in := range inputs {
		if in.NumAtoms() >= n {
			ref = in
			break
		}
	}
	coords := ref.Coords[:3*min(n, ref.NumAtoms())]
	t0, c0 := time.Now(), processCPU().Seconds()
	b2t.ReferenceEncode(w, coords)
	refRate := float64(len(coords)/3) / time.Since(t0).Seconds()
	refCPU := float64(len(coords)/3) / (processCPU().Seconds() - c0)
	fmt.Printf("  baseline, same process: sequential float64 reference (plain Go loops, 1 thread) %.0f atoms/s wall (%.0f per CPU-second)\n", refRate, refCPU)
	fmt.Printf("  quoted, not measured: exp40 PyTorch CPU %.2f ms/atom = %.0f atoms/s (1 thread)\n", exp40CPUMsPerAtom, 1000/exp40CPUMsPerAtom)
}

// reportTPUProjection prints what a v6e-4 host would do (NOT MEASURED),
// derived from the buckets' timings, the padding efficiency eff, this
// machine's memory bandwidth bw and the job's ladder's programs.
func reportTPUProjection(timings []tokenizeTiming, eff, bw float64, programs int) {
	fmt.Println("\nPROJECTION for a TPU host (v6e-4) — NOT MEASURED, derived from the numbers above:")
	fmt.Printf("  assumptions: the encoder is memory-bound (the scan is elementwise); a v6e chip streams %.0f GB/s of HBM; %d chips per host, one device worker each; padding efficiency %.3f (16 shards in flight, computed above); programs compiled once per process (%d buckets, vs %d in exp40).\n",
		v6eHBMBytesPerSec/1e9, v6eChipsPerHost, eff, programs, exp40Compiles)
	for _, t := range timings {
		perAtom := float64(t.cost.Bytes) / float64(t.shape.Batch*t.shape.Length)
		cpuFrac := t.bytesPerSec / bw
		unfused := v6eHBMBytesPerSec * cpuFrac / perAtom * eff
		atPeak := v6eHBMBytesPerSec * 0.5 / perAtom * eff
		fmt.Printf("  bucket %d, %.1f KB/atom unfused:\n", t.shape.Length, perAtom/1e3)
		fmt.Printf("    pessimistic (TPU reaches the same fraction of its memory bandwidth as this CPU did, %.2f): %.0f atoms/s per chip, %.0f per host\n", cpuFrac, unfused, unfused*v6eChipsPerHost)
		fmt.Printf("    at 50%% of HBM bandwidth, no fusion: %.0f atoms/s per chip, %.0f per host\n", atPeak, atPeak*v6eChipsPerHost)
	}
	fmt.Printf("  exp40 reference (measured there): %d atoms/s per chip x %d chip used = %d atoms/s per host\n", exp40ChipAtomsPerSec, exp40ChipsUsed, exp40ChipAtomsPerSec*exp40ChipsUsed)
}

// fullBatch fills every row of shape s with real coordinates: the first
// s.Length atoms of the corpus structures, cycling through them.
func fullBatch(inputs []*b2t.Input, s b2t.Shape) ([]float32, []int32) {
	coords := make([]float32, s.Batch*s.Length*3)
	lengths := make([]int32, s.Batch)
	k := 0
	for r := 0; r < s.Batch; r++ {
		row := coords[r*s.Length*3 : (r+1)*s.Length*3]
		for filled := 0; filled < len(row); k++ {
			filled += copy(row[filled:], inputs[k%len(inputs)].Coords)
		}
		lengths[r] = int32(s.Length)
	}
	return coords, lengths
}

func rowEfficiency(ladder []int, atoms []int) float64 {
	var real, padded float64
	for _, n := range atoms {
		real += float64(n)
		padded += float64(b2t.BucketFor(ladder, n))
	}
	return real / padded
}

// windowEfficiency batches each window of rows alone (partial batches
// flushed at the end of every window) and returns the padding efficiency.
func windowEfficiency(ladder []int, atoms []int, shardRows int) float64 {
	var batches []b2t.Batch
	for start := 0; start < len(atoms); start += shardRows {
		end := min(start+shardRows, len(atoms))
		for _, b := range b2t.PlanBatches(ladder, atoms[start:end]) {
			for i := range b.Items {
				b.Items[i] += start
			}
			batches = append(batches, b)
		}
	}
	return b2t.PaddingEfficiency(batches, atoms)
}

// memBandwidth measures a large copy (read + write bytes per second).
func memBandwidth() float64 {
	src := make([]byte, 256<<20)
	dst := make([]byte, len(src))
	for i := range src {
		src[i] = byte(i)
	}
	best := 0.0
	for r := 0; r < 3; r++ {
		t0 := time.Now()
		copy(dst, src)
		best = max(best, 2*float64(len(src))/time.Since(t0).Seconds())
	}
	return best
}

func minInt(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func maxInt(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func medianInt(xs []int) int {
	s := append([]int(nil), xs...)
	sort.Ints(s)
	return s[len(s)/2]
}
