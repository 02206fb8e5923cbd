package cropsv1

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/structure"
)

// TestKernel: the C kernel (candidatesC) gives the Go loop's documents,
// byte for byte with every metadata field, on the golden inputs under
// configurations that take its rare paths: windows shorter than a
// candidate's draws (most candidates go to candidate, and the kernel
// resumes after them), wider noise (more candidates near the box, more
// values computed), other keep probabilities and budgets, the screen
// without AVX2 (cr_screen_any), and several seeds per structure.
func TestKernel(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernel")
	}
	setups := []struct {
		name   string
		cfg    func(*Config)
		window int
		scalar bool // cr_screen_any where the CPU has AVX2
	}{
		{name: "default", cfg: func(*Config) {}},
		{name: "windows of 12", cfg: func(*Config) {}, window: 12},
		{name: "windows of 37", cfg: func(*Config) {}, window: 37},
		{name: "wide noise, keep half", cfg: func(c *Config) { c.RefineNoiseBase, c.KeepProb = 3.5, 0.5 }},
		{name: "all pass 2", cfg: func(c *Config) { c.FineReserve, c.Pass1Sigma = 100000, 0.3 }, window: 200},
		{name: "short context", cfg: func(c *Config) { c.Front.ContextLength, c.FineReserve = 3000, 1500 }},
		{name: "scalar screen", cfg: func(*Config) {}, scalar: true},
		{name: "scalar screen, windows of 37, wide noise", cfg: func(c *Config) { c.RefineNoiseBase = 3.5 }, window: 37, scalar: true},
	}
	docs := 0
	for _, su := range setups {
		cfg := DefaultConfig()
		su.cfg(&cfg)
		goGen, cGen := new(Generator), new(Generator)
		docs += coordgolden.SameDocuments(t, golden, su.name, func(st *structure.Structure, a *contactsv1.Analysis, id string, kernel bool) coordgolden.Pair {
			g := goGen
			useKernel = kernel
			avx2 := screenAVX2
			if kernel {
				g, windowCap = cGen, su.window
				if su.scalar {
					screenAVX2 = 0
				}
			}
			defer func() { useKernel, windowCap, screenAVX2 = true, 0, avx2 }()
			d, filtered := g.Generate(st, a, id, cfg)
			if d == nil {
				return coordgolden.Pair{Filtered: filtered}
			}
			return coordgolden.Pair{Text: d.Text, Doc: *d}
		})
	}
	t.Logf("%d documents compared", docs)
}

// TestCellsKernel: cellsC (with AVX2 where the CPU has it, and without)
// gives cells's keys, packed indices and bounds for coordinates around
// every rounding boundary of the boxes (x.x5 and x9.95 in tenths), out of
// [0, 999.9] and at its ends, negative zero and infinities, in runs of
// every length up to past a block.
func TestCellsKernel(t *testing.T) {
	if !kernelOK {
		t.Skip("SKIP: built without cgo, so without the C kernel")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	special := []float64{0, math.Copysign(0, -1), -1e-300, -3, 999.9, 999.85, 999.95, 1000, 1e9, math.Inf(1), math.Inf(-1),
		0.05, 0.04999999999999999, 9.95, 9.949999999999999, 99.95, 10, 9.999999999999998}
	avx2 := screenAVX2
	defer func() { screenAVX2 = avx2 }()
	for i := range 4000 {
		m := 1 + i%300
		coords := make([][3]float64, m)
		for k := range coords {
			for j := range 3 {
				switch rng.IntN(4) {
				case 0:
					coords[k][j] = special[rng.IntN(len(special))]
				case 1: // next to a box boundary's rounding: (10b - 0.05) +- a few ulps
					v := float64(10*rng.IntN(101)) - 0.05
					for range rng.IntN(4) {
						v = math.Nextafter(v, math.Inf(2*rng.IntN(2)-1))
					}
					coords[k][j] = v
				default:
					coords[k][j] = rng.Float64()*1010 - 5
				}
			}
		}
		wantKey, wantIdx := make([]int32, m), make([]int32, m)
		wlo, whi := cells(coords, wantKey, wantIdx)
		for _, scalar := range []bool{false, true} {
			screenAVX2 = avx2
			if scalar {
				screenAVX2 = 0
			}
			key, idx := make([]int32, m), make([]int32, m)
			lo, hi := cellsC(coords, key, idx)
			if lo != wlo || hi != whi || !slices.Equal(key, wantKey) || !slices.Equal(idx, wantIdx) {
				for k := range key {
					if key[k] != wantKey[k] || idx[k] != wantIdx[k] {
						t.Fatalf("scalar %v, case %d atom %d %v: key %d idx %x, cells %d %x", scalar, i, k, coords[k], key[k], idx[k], wantKey[k], wantIdx[k])
					}
				}
				t.Fatalf("scalar %v, case %d: bounds %v %v, cells %v %v", scalar, i, lo, hi, wlo, whi)
			}
		}
	}
}
