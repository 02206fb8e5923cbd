package neural

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// smallConfig keeps most tests fast; the full-size model is checked once.
var smallConfig = b2t.Config{DModel: 16, DInner: 32, DState: 4, DTRank: 2, DConv: 4, Layers: 2}

func testBackend(t *testing.T) backends.Backend {
	t.Helper()
	b, err := NewBackend("go")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testWeights(t *testing.T, c b2t.Config, seed uint64) *b2t.Weights {
	t.Helper()
	w, err := b2t.RandomWeights(c, seed)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// randomCoords returns n atoms on a compact random walk, centred, like a protein.
func randomCoords(seed uint64, n int) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float32, 3*n)
	var p [3]float64
	for i := 0; i < n; i++ {
		for k := 0; k < 3; k++ {
			p[k] += rng.NormFloat64() * 1.5
			out[3*i+k] = float32(p[k])
		}
	}
	return out
}

// runBounded runs the encoder up to the FSQ bound on one batch: [B*L*6].
func runBounded(t *testing.T, e *Encoder, s b2t.Shape, coords []float32, lengths []int32) []float32 {
	t.Helper()
	cfg := e.cfg
	ex, err := graph.NewExec(e.backend, func(in []*graph.Node) *graph.Node { return encodeBounded(cfg, in) })
	if err != nil {
		t.Fatal(err)
	}
	out, err := ex.Exec(e.args(tensors.FromFlatDataAndDimensions(coords, s.Batch, s.Length, 3),
		tensors.FromFlatDataAndDimensions(lengths, s.Batch))...)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tensors.CopyFlatData[float32](out[0])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNumParams(t *testing.T) {
	for _, tc := range []struct {
		cfg  b2t.Config
		want int
	}{
		{b2t.DefaultConfig(), 467718},
		{smallConfig, 3*16 + 2*(16+2*32*16+32*4+32+(2+8)*32+32*2+32+32*4+32+16*32) + 16 + 6*16 + 6},
	} {
		w := testWeights(t, tc.cfg, 1)
		if got := w.NumParams(); got != tc.want {
			t.Errorf("NumParams(%+v) = %d, want %d", tc.cfg, got, tc.want)
		}
	}
}

// TestScanMatchesSequential holds the Hillis-Steele scan to the float64
// sequential recurrence h_t = a_t h_{t-1} + b_t, within 1e-6 relative.
func TestScanMatchesSequential(t *testing.T) {
	backend := testBackend(t)
	for _, l := range []int{1, 2, 3, 7, 64, 100, 513} {
		const bsz, d, n = 2, 3, 2
		rng := rand.New(rand.NewPCG(uint64(l), 1))
		a := make([]float32, bsz*l*d*n)
		b := make([]float32, len(a))
		for i := range a {
			a[i] = float32(0.5 + 0.5*rng.Float64()) // decays like exp(dt*A)
			b[i] = float32(0.5 + rng.Float64())     // positive: no cancellation, so relative error is meaningful
		}
		out, err := graph.ExecOnce(backend, func(a, b *graph.Node) *graph.Node { return Scan(a, b) },
			tensors.FromFlatDataAndDimensions(a, bsz, l, d, n), tensors.FromFlatDataAndDimensions(b, bsz, l, d, n))
		if err != nil {
			t.Fatal(err)
		}
		got := tensors.MustCopyFlatData[float32](out)
		worst := 0.0
		for bi := 0; bi < bsz; bi++ {
			for j := 0; j < d*n; j++ {
				h := 0.0
				for ti := 0; ti < l; ti++ {
					idx := (bi*l+ti)*d*n + j
					h = float64(a[idx])*h + float64(b[idx])
					worst = max(worst, math.Abs(float64(got[idx])-h)/h)
				}
			}
		}
		if worst > 1e-6 {
			t.Errorf("L=%d: scan vs sequential recurrence: worst relative error %.3g > 1e-6", l, worst)
		}
		t.Logf("L=%d: worst relative error %.3g", l, worst)
	}
}

func TestRoundHalfEven(t *testing.T) {
	in := []float32{-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.4999999, 0.49999997, 0.50000006, -0.50000006, 0.9985, -1.9985, 0, 1.25, -1.75}
	want := []float32{-2, -2, 0, 0, 2, 2, -1, 0, 1, -1, 1, -2, 0, 1, -2}
	out, err := graph.ExecOnce(testBackend(t), roundHalfEven, in)
	if err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[float32](out)
	for i := range in {
		if got[i] != want[i] {
			t.Errorf("roundHalfEven(%v) = %v, want %v", in[i], got[i], want[i])
		}
	}
}

// TestEncoderMatchesReference holds the whole GoMLX encoder to the
// independent float64 implementation: bounded FSQ values within 2e-5, and
// identical codes wherever the reference is not within 1e-4 of a rounding
// boundary.
func TestEncoderMatchesReference(t *testing.T) {
	backend := testBackend(t)
	for _, tc := range []struct {
		name string
		cfg  b2t.Config
		n    int
	}{
		{"small", smallConfig, 57},
		{"full-size", b2t.DefaultConfig(), 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := testWeights(t, tc.cfg, 3)
			e, err := NewEncoder(backend, w)
			if err != nil {
				t.Fatal(err)
			}
			coords := randomCoords(11, tc.n)
			s := b2t.Shape{Batch: 1, Length: tc.n}
			gotB := runBounded(t, e, s, coords, []int32{int32(tc.n)})
			gotC, err := e.Run(0, s, coords, []int32{int32(tc.n)})
			if err != nil {
				t.Fatal(err)
			}
			wantB, wantC := b2t.ReferenceEncode(w, coords)
			distinct := map[int32]bool{}
			worst := 0.0
			for i := 0; i < tc.n; i++ {
				nearTie := false
				for q := 0; q < b2t.FSQDims; q++ {
					d := math.Abs(float64(gotB[i*b2t.FSQDims+q]) - wantB[i][q])
					worst = max(worst, d)
					if d > 2e-5 {
						t.Errorf("atom %d dim %d: bounded %v, reference %v", i, q, gotB[i*b2t.FSQDims+q], wantB[i][q])
					}
					if f := wantB[i][q] - math.Floor(wantB[i][q]); math.Abs(f-0.5) < 1e-4 {
						nearTie = true
					}
				}
				if !nearTie && gotC[i] != wantC[i] {
					t.Errorf("atom %d: code %d, reference %d", i, gotC[i], wantC[i])
				}
				distinct[gotC[i]] = true
			}
			t.Logf("%d atoms: worst |float32 graph - float64 reference| of the FSQ bound %.3g; %d distinct codes", tc.n, worst, len(distinct))
			if len(distinct) < 2 {
				t.Errorf("all %d atoms got the same code: the comparison is vacuous", tc.n)
			}
		})
	}
}

// TestPaddedBatchEqualsSingle: structures of mixed lengths, right-padded
// into one batch (with an empty row), give bit-for-bit the codes and the
// bounded values of each structure run alone, unpadded — in both
// directions, since the model is bidirectional.
func TestPaddedBatchEqualsSingle(t *testing.T) {
	backend := testBackend(t)
	for _, tc := range []struct {
		name    string
		cfg     b2t.Config
		lengths []int
		padTo   int
	}{
		{"small", smallConfig, []int{5, 33, 1, 17}, 40},
		{"small-long", smallConfig, []int{300, 129}, 512},
		{"full-size", b2t.DefaultConfig(), []int{9, 3}, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEncoder(backend, testWeights(t, tc.cfg, 5))
			if err != nil {
				t.Fatal(err)
			}
			s := b2t.Shape{Batch: len(tc.lengths) + 1, Length: tc.padTo} // last row empty
			batch := make([]float32, s.Batch*s.Length*3)
			lengths := make([]int32, s.Batch)
			singles := make([][]float32, len(tc.lengths))
			for r, n := range tc.lengths {
				singles[r] = randomCoords(uint64(100+r), n)
				copy(batch[r*s.Length*3:], singles[r])
				lengths[r] = int32(n)
			}
			batchB := runBounded(t, e, s, batch, lengths)
			batchC, err := e.Run(0, s, batch, lengths)
			if err != nil {
				t.Fatal(err)
			}
			for r, n := range tc.lengths {
				one := b2t.Shape{Batch: 1, Length: n}
				singleB := runBounded(t, e, one, singles[r], []int32{int32(n)})
				singleC, err := e.Run(0, one, singles[r], []int32{int32(n)})
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < n; i++ {
					if batchC[r*s.Length+i] != singleC[i] {
						t.Errorf("row %d atom %d: batched code %d, single %d", r, i, batchC[r*s.Length+i], singleC[i])
					}
					for q := 0; q < b2t.FSQDims; q++ {
						bv, sv := batchB[(r*s.Length+i)*b2t.FSQDims+q], singleB[i*b2t.FSQDims+q]
						if math.Float32bits(bv) != math.Float32bits(sv) {
							t.Errorf("row %d atom %d dim %d: batched %v, single %v (not bit-identical)", r, i, q, bv, sv)
						}
					}
				}
			}
		})
	}
}

func TestCompileOncePerShape(t *testing.T) {
	e, err := NewEncoder(testBackend(t), testWeights(t, smallConfig, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []b2t.Shape{{Batch: 2, Length: 8}, {Batch: 2, Length: 8}, {Batch: 1, Length: 16}, {Batch: 2, Length: 8}} {
		if err := e.Compile(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Run(0, b2t.Shape{Batch: 1, Length: 16}, make([]float32, 48), []int32{16}); err != nil {
		t.Fatal(err)
	}
	if got := e.Compiles(); got != 2 {
		t.Errorf("Compiles() = %d after compiling 2 distinct shapes, want 2", got)
	}
	if _, err := e.Run(0, b2t.Shape{Batch: 1, Length: 16}, make([]float32, 48), []int32{17}); err == nil {
		t.Error("Run accepted a row length beyond the shape")
	}
}
