package bio2token

import "sort"

const (
	// MinBucket and MaxBucket bound the length ladder; longer inputs are
	// padded to a multiple of MaxBucket (one extra program per such length).
	MinBucket = 256
	MaxBucket = 16384
	// AtomsPerBatch bounds a batch's padded atoms (device memory).
	AtomsPerBatch = 131072
	// MaxBatch bounds a batch's rows.
	MaxBatch = 32
	// TargetBatchAtoms is the padded atoms a batch aims at: enough rows to
	// keep an accelerator busy, few enough that batches of the long buckets
	// fill up (empty rows are padding too). With the 4-rung ladder it takes
	// padding efficiency over the AFDB length distribution from 0.77 to
	// 0.83 with 16 shards in flight (`foldcorpus bench tokenize`).
	TargetBatchAtoms = 32768
)

// Shape is one compiled batch shape: Batch rows of Length atoms.
type Shape struct{ Batch, Length int }

// Ladder returns the bucket lengths from MinBucket to MaxBucket with
// rungsPerOctave lengths per doubling: 1 gives exp40's 256, 512, ...,
// 16384 (7 programs); 4 gives 256, 320, 384, 448, 512, 640, ... (25
// programs), which pads the AFDB length distribution far less (see
// `foldcorpus bench tokenize`).
func Ladder(rungsPerOctave int) []int {
	if rungsPerOctave < 1 {
		rungsPerOctave = 1
	}
	var l []int
	for b := MinBucket; b < MaxBucket; b *= 2 {
		for j := 0; j < rungsPerOctave; j++ {
			r := b + b*j/rungsPerOctave
			if len(l) == 0 || r > l[len(l)-1] {
				l = append(l, r)
			}
		}
	}
	return append(l, MaxBucket)
}

// DefaultRungs is the ladder density the tokenizer uses unless configured.
const DefaultRungs = 4

// BucketFor returns the padded length for an input of n atoms: the
// smallest ladder length >= n, or beyond the ladder the next multiple of
// MaxBucket.
func BucketFor(ladder []int, n int) int {
	i := sort.SearchInts(ladder, n)
	if i < len(ladder) {
		return ladder[i]
	}
	return (n + MaxBucket - 1) / MaxBucket * MaxBucket
}

// BatchSize is the fixed row count of a bucket's program, within exp40's
// max(1, min(MaxBatch, AtomsPerBatch/bucket)) and at most
// TargetBatchAtoms/bucket rows.
func BatchSize(bucket int) int {
	return max(1, min(MaxBatch, AtomsPerBatch/bucket, TargetBatchAtoms/bucket))
}

// ShapeFor is the one program shape of a bucket.
func ShapeFor(bucket int) Shape { return Shape{BatchSize(bucket), bucket} }

// Batch is one program run: up to Shape.Batch inputs padded to Shape.Length.
type Batch struct {
	Shape Shape
	Items []int // indices into the caller's inputs, one per used row
}

// PlanBatches groups inputs of the given atom counts into batches: each
// input goes to its bucket; each bucket's inputs, in order, fill batches of
// the bucket's fixed shape (the last one partly). Batches come out by
// bucket length, then in input order.
func PlanBatches(ladder []int, atoms []int) []Batch {
	byBucket := map[int][]int{}
	for i, n := range atoms {
		b := BucketFor(ladder, n)
		byBucket[b] = append(byBucket[b], i)
	}
	buckets := make([]int, 0, len(byBucket))
	for b := range byBucket {
		buckets = append(buckets, b)
	}
	sort.Ints(buckets)
	var out []Batch
	for _, b := range buckets {
		s := ShapeFor(b)
		items := byBucket[b]
		for len(items) > 0 {
			k := min(s.Batch, len(items))
			out = append(out, Batch{Shape: s, Items: items[:k:k]})
			items = items[k:]
		}
	}
	return out
}

// PaddingEfficiency is real atoms / padded atoms over batches, counting
// empty rows of partial batches as padding.
func PaddingEfficiency(batches []Batch, atoms []int) float64 {
	var real, padded int
	for _, b := range batches {
		padded += b.Shape.Batch * b.Shape.Length
		for _, i := range b.Items {
			real += atoms[i]
		}
	}
	if padded == 0 {
		return 0
	}
	return float64(real) / float64(padded)
}
