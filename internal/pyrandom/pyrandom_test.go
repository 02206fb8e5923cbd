package pyrandom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

const python = "/usr/bin/python3"

type oracleCase struct {
	Kind string  `json:"kind"` // "int" or "str"
	Seed string  `json:"seed"`
	Ops  [][]any `json:"ops"`
}

// runOracle runs testdata/oracle.py under CPython on the cases and returns
// its result strings, one list per case.
func runOracle(t *testing.T, cases []oracleCase) [][]string {
	t.Helper()
	testcorpus.Tool(t, python, "the CPython oracle cannot check this package against CPython")
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/oracle.py")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle.py: %v\n%s", err, stderr.String())
	}
	var res [][]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("oracle.py output: %v", err)
	}
	return res
}

func newFor(t *testing.T, c oracleCase) *Rand {
	t.Helper()
	if c.Kind == "str" {
		return NewFromString(c.Seed)
	}
	x, ok := new(big.Int).SetString(c.Seed, 10)
	if !ok {
		t.Fatalf("bad int seed %q", c.Seed)
	}
	if x.Sign() >= 0 && x.IsUint64() {
		return New(x.Uint64())
	}
	return NewFromBig(x)
}

func hexf(v float64) string { return strconv.FormatFloat(v, 'x', -1, 64) }

func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, " ")
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func arg(op []any, i int) int {
	if v, ok := op[i].(int); ok {
		return v
	}
	return int(op[i].(float64))
}

// apply runs one op on r and formats its result like oracle.py (floats in
// Go's hex form; compared by value).
func apply(r *Rand, op []any) string {
	switch op[0].(string) {
	case "random":
		return hexf(r.Random())
	case "getrandbits":
		return strconv.FormatUint(r.GetRandBits(arg(op, 1)), 10)
	case "randbelow":
		return strconv.Itoa(r.RandBelow(arg(op, 1)))
	case "randint":
		return strconv.Itoa(r.RandInt(arg(op, 1), arg(op, 2)))
	case "randrange":
		return strconv.Itoa(r.RandRange(arg(op, 1), arg(op, 2), arg(op, 3)))
	case "uniform":
		return hexf(r.Uniform(op[1].(float64), op[2].(float64)))
	case "gauss":
		return hexf(r.Gauss(op[1].(float64), op[2].(float64)))
	case "gausses": // the batched path must equal repeated gauss()
		dst := make([]float64, arg(op, 1))
		r.FillGauss(dst, op[2].(float64), op[3].(float64))
		s := make([]string, len(dst))
		for i, v := range dst {
			s[i] = hexf(v)
		}
		return strings.Join(s, " ")
	case "choice":
		return strconv.Itoa(Choice(r, seq(arg(op, 1))))
	case "shuffle":
		s := seq(arg(op, 1))
		Shuffle(r, s)
		return ints(s)
	case "sample":
		return ints(Sample(r, seq(arg(op, 1)), arg(op, 2)))
	case "sampleidx":
		var s []int
		for _, v := range SampleIndices(r, nil, arg(op, 1), arg(op, 2)) {
			s = append(s, int(v))
		}
		return ints(s)
	case "sample2":
		a, b := Sample2(r, arg(op, 1))
		return ints([]int{a, b})
	}
	panic(fmt.Sprintf("unknown op %v", op))
}

// same compares one result; float results (hex) are compared by value:
// exactly when tol is 0, else within tol*(1+|want|).
func same(got, want string, tol float64) bool {
	if got == want {
		return true
	}
	g, w := strings.Fields(got), strings.Fields(want)
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		gf, err1 := strconv.ParseFloat(g[i], 64)
		wf, err2 := strconv.ParseFloat(w[i], 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if tol == 0 && math.Float64bits(gf) != math.Float64bits(wf) {
			return false
		}
		if math.Abs(gf-wf) > tol*(1+math.Abs(wf)) {
			return false
		}
	}
	return true
}

func ops(name string, n int, args ...any) [][]any {
	out := make([][]any, n)
	for i := range out {
		out[i] = append([]any{name}, args...)
	}
	return out
}

func cat(parts ...[][]any) [][]any {
	var out [][]any
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestAgainstCPython(t *testing.T) {
	var nearPow2 [][]any
	for _, k := range []int{1, 2, 3, 7, 8, 16, 31, 32, 33, 52, 53, 62} {
		p := 1 << k
		nearPow2 = append(nearPow2, []any{"randbelow", p - 1}, []any{"randbelow", p}, []any{"randbelow", p + 1})
	}
	var bits [][]any
	for k := 0; k <= 64; k++ {
		bits = append(bits, []any{"getrandbits", k})
	}
	gaussMix := [][]any{{"gauss", 2.0, 1.0}, {"random"}, {"gauss", 0.0, 1.0}, {"gauss", -3.5, 0.25},
		{"gausses", 5, 2.0, 1.0}, {"gausses", 4, 0.0, 1.0}, {"gauss", 1.0, 2.0}, {"gausses", 1, 0.0, 1.0},
		{"gausses", 0, 0.0, 1.0}, {"gauss", 0.0, 1.0}, {"gausses", 7, 0.0, 3.0}}
	samples := [][]any{
		{"sample", 10, 3}, {"sample", 21, 5}, {"sample", 22, 5}, // k <= 5: setsize 21
		{"sample", 30, 6}, {"sample", 85, 6}, {"sample", 86, 6}, // k = 6: 21 + 4**3 = 85
		{"sample", 100, 100}, {"sample", 1000, 2}, {"sample", 5000, 40}, {"sample", 2, 2}, {"sample", 7, 0},
		{"sample", 3000, 700}, {"sample", 278, 22}, {"sample", 277, 22},
		{"sampleidx", 10, 3}, {"sampleidx", 22, 5}, {"sampleidx", 85, 6}, {"sampleidx", 86, 6},
		{"sampleidx", 5000, 40}, {"sampleidx", 3000, 700}, {"sampleidx", 100, 100}, {"sampleidx", 9, 0},
		{"sample2", 2}, {"sample2", 3}, {"sample2", 21}, {"sample2", 22}, {"sample2", 500},
	}
	misc := [][]any{
		{"randint", 0, 0}, {"randint", -5, 5}, {"randint", 0, 1 << 40}, {"randrange", 0, 10, 1},
		{"randrange", 3, 100, 7}, {"randrange", 100, 3, -7}, {"randrange", -10, 10, 3},
		{"uniform", -4.0, 4.0}, {"uniform", -0.1, 0.2}, {"uniform", 5.0, 1.0},
		{"choice", 1}, {"choice", 37}, {"choice", 1000003}, {"shuffle", 0}, {"shuffle", 1}, {"shuffle", 50},
	}
	all := cat(ops("random", 5), bits, nearPow2, gaussMix, samples, misc)
	cases := []oracleCase{
		{Kind: "int", Seed: "0", Ops: all},
		{Kind: "int", Seed: "1", Ops: all},
		{Kind: "int", Seed: "42", Ops: cat(ops("random", 700), all)}, // crosses a 624-word refill
		{Kind: "int", Seed: "4294967295", Ops: all},
		{Kind: "int", Seed: "4294967296", Ops: all},
		{Kind: "int", Seed: "18446744073709551615", Ops: all},
		{Kind: "int", Seed: "-12345", Ops: all},
		{Kind: "int", Seed: "340282366920938463463374607431768211457", Ops: all},
		{Kind: "int", Seed: "123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890", Ops: all},
		{Kind: "str", Seed: "", Ops: all},
		{Kind: "str", Seed: "AF-P69905-F1", Ops: all},
		{Kind: "str", Seed: "héllo wörld ✓", Ops: all},
		{Kind: "int", Seed: "2743436054", Ops: cat(ops("gauss", 2001, 0.0, 1.0), ops("gausses", 3, 999, 2.0, 1.0))},
	}
	want := runOracle(t, cases)
	for ci, c := range cases {
		r := newFor(t, c)
		for oi, op := range c.Ops {
			got := apply(r, op)
			tol := 0.0
			if name := op[0].(string); !ExactLibm && (name == "gauss" || name == "gausses") {
				tol = 1e-14 // Go's math.Log/Cos/Sin are within an ulp or so of glibc's
			}
			if !same(got, want[ci][oi], tol) {
				t.Fatalf("seed %s %q: op %d %v = %q, want %q (CPython)", c.Kind, c.Seed, oi, op, got, want[ci][oi])
			}
		}
	}
}

// TestLibmAgainstCPython checks Log, Cos and Sin against CPython's math
// module over the inputs Gauss and Sample give them.
func TestLibmAgainstCPython(t *testing.T) {
	if !ExactLibm {
		t.Skip("built without cgo: Log/Cos/Sin are Go's math functions, not glibc's")
	}
	var cs []oracleCase
	c := oracleCase{Kind: "int", Seed: "7", Ops: ops("gausses", 1, 20000, 0.0, 1.0)}
	cs = append(cs, c)
	want := runOracle(t, cs)
	got := apply(New(7), c.Ops[0])
	if !same(got, want[0][0], 0) {
		t.Fatalf("20000 gauss values differ from CPython's")
	}
}

func TestReseedEqualsNew(t *testing.T) {
	r := New(99)
	r.Gauss(0, 1) // leaves a cached value that Reseed must drop
	for _, seed := range []uint64{0, 1, 1 << 32, 1<<64 - 1} {
		r.Reseed(seed)
		fresh := New(seed)
		for i := range 700 {
			if a, b := r.Gauss(0, 1), fresh.Gauss(0, 1); a != b {
				t.Fatalf("Reseed(%d): draw %d = %v, New gives %v", seed, i, a, b)
			}
		}
	}
}

func TestNewFromWordsDropsHighZeros(t *testing.T) {
	tests := []struct {
		a, b []uint32
	}{
		{[]uint32{5}, []uint32{5, 0, 0}},
		{[]uint32{0}, nil},
		{[]uint32{0}, []uint32{0, 0}},
		{[]uint32{1, 2}, []uint32{1, 2, 0}},
	}
	for _, tt := range tests {
		ra, rb := NewFromWords(tt.a), NewFromWords(tt.b)
		for range 3 {
			if x, y := ra.Uint32(), rb.Uint32(); x != y {
				t.Errorf("NewFromWords(%v) and NewFromWords(%v) differ: %d vs %d", tt.a, tt.b, x, y)
				break
			}
		}
	}
}

func TestPanicsOnCallerBugs(t *testing.T) {
	tests := []struct {
		name string
		f    func(r *Rand)
	}{
		{"RandBelow(0)", func(r *Rand) { r.RandBelow(0) }},
		{"RandRange empty", func(r *Rand) { r.RandRange(5, 5, 1) }},
		{"RandRange zero step", func(r *Rand) { r.RandRange(0, 5, 0) }},
		{"RandRange empty step", func(r *Rand) { r.RandRange(5, 0, 2) }},
		{"Choice empty", func(r *Rand) { Choice(r, []int{}) }},
		{"Sample too many", func(r *Rand) { Sample(r, []int{1, 2}, 3) }},
		{"GetRandBits(65)", func(r *Rand) { r.GetRandBits(65) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", tt.name)
				}
			}()
			tt.f(New(1))
		})
	}
}

// TestGenerateMatchesGo checks generate (C, four words at a time, with cgo)
// against generateGo, the word-by-word port of CPython's genrand_uint32,
// over many blocks of several seeds.
func TestGenerateMatchesGo(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1<<32 + 5, 1<<64 - 1} {
		a, b := New(seed), New(seed)
		for blk := range 200 {
			a.generate()
			b.generateGo()
			if a.mt != b.mt || a.out != b.out {
				t.Fatalf("seed %d block %d: generate and generateGo differ", seed, blk)
			}
		}
	}
}

// TestCoordinateFormatDrawsManySeeds checks, over 300 document seeds, the
// draws the coordinate formats make, in their order, against CPython: the
// quaternion's four gauss(0, 1), a shuffle, three uniform(0, slack), the
// contacts coin, randint(1, min(50, E)), sample of both branches (E around
// sample's set size), the sample's shuffle, then gauss with changing sigma
// so that the cached value crosses sigma changes and other draws.
func TestCoordinateFormatDrawsManySeeds(t *testing.T) {
	var cases []oracleCase
	for i := range 300 {
		seed := uint64(i)*2654435761%4294967296 + uint64(i) // spread over uint32, distinct
		e := []int{3, 21, 22, 60, 85, 86, 277, 278, 1200}[i%9]
		k := 1 + i%min(50, e)
		ops := [][]any{
			{"gauss", 0.0, 1.0}, {"gauss", 0.0, 1.0}, {"gauss", 0.0, 1.0}, {"gauss", 0.0, 1.0},
			{"randrange", 0, 2000, 1}, {"shuffle", 2 + i%700},
			{"uniform", 0.0, 900.5}, {"uniform", 0.0, 13.25}, {"uniform", 0.0, 0.0},
			{"random"}, {"randint", 1, min(50, e)}, {"sample", e, k}, {"shuffle", k},
			{"gauss", 0.0, 25.0}, {"randbelow", 5000}, {"gauss", 0.0, 2.5}, {"gauss", 0.0, 0.25},
			{"random"}, {"gauss", 0.0, 2.0}, {"gauss", 0.0, 1.0 / 9}, {"randbelow", 1},
		}
		cases = append(cases, oracleCase{Kind: "int", Seed: strconv.FormatUint(seed, 10), Ops: ops})
	}
	want := runOracle(t, cases)
	for ci, c := range cases {
		r := newFor(t, c)
		for oi, op := range c.Ops {
			tol := 0.0
			if !ExactLibm && op[0] == "gauss" {
				tol = 1e-14
			}
			if got := apply(r, op); !same(got, want[ci][oi], tol) {
				t.Fatalf("seed %s: op %d %v = %q, CPython %q", c.Seed, oi, op, got, want[ci][oi])
			}
		}
	}
}

// TestSkip: Skip(k) leaves the generator where k calls of Uint32 do, from
// every offset in a block and across several blocks.
func TestSkip(t *testing.T) {
	a, b := New(12345), New(12345)
	for i := range 4000 {
		k := (i * 37) % 700
		if i%97 == 0 {
			k = 2000 + i
		}
		for range k {
			a.Uint32()
		}
		b.Skip(k)
		if x, y := a.Uint32(), b.Uint32(); x != y {
			t.Fatalf("step %d (skip %d): %#x vs %#x", i, k, x, y)
		}
	}
}

// TestWindow: Window shows the outputs Uint32 returns next, and Advance
// consumes them, across blocks.
func TestWindow(t *testing.T) {
	a, b := New(99), New(99)
	for i := range 400 {
		w := b.Window()
		if len(w) == 0 {
			t.Fatal("empty window")
		}
		k := min(len(w), (i*41)%97)
		for j := range k {
			if want := a.Uint32(); w[j] != want {
				t.Fatalf("window %d, output %d: %#x, Uint32 %#x", i, j, w[j], want)
			}
		}
		b.Advance(k)
		if x, y := a.Random(), b.Random(); x != y {
			t.Fatalf("after window %d: random() %v vs %v", i, x, y)
		}
	}
}

// TestRandoms: Randoms gives Random's values and leaves the stream where
// they would, from even and odd positions in a block and across blocks.
func TestRandoms(t *testing.T) {
	a, b := New(4242), New(4242)
	var dst []float64
	for i := range 600 {
		if i%3 == 0 { // an odd position
			if x, y := a.Uint32(), b.Uint32(); x != y {
				t.Fatalf("step %d: Uint32 %#x vs %#x", i, x, y)
			}
		}
		dst = make([]float64, (i*53)%1500)
		b.Randoms(dst)
		for j, v := range dst {
			if want := a.Random(); math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("step %d, value %d of %d: %v, Random %v", i, j, len(dst), v, want)
			}
		}
	}
	if x, y := a.Uint32(), b.Uint32(); x != y {
		t.Fatalf("after: Uint32 %#x vs %#x", x, y)
	}
}
