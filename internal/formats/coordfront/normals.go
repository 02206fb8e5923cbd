package coordfront

import (
	"math"

	"github.com/foldcorpus/foldcorpus/internal/pyrandom"
)

// Normals is CPython's random.gauss() stream on a Rand, with the value
// computation split from the draws: Next consumes exactly the draws that
// gauss() would (two random() calls for the first value of a pair, none for
// the cached second value) and returns the pair's draws, so that callers
// can compute values exactly (Exact) or approximately with a known bound
// (Approx) and only when they need them. The cached second value survives
// any number of other draws on the Rand, as in CPython; only Gaussian draws
// may go through Normals once it is in use (never Rand.Gauss as well).
type Normals struct {
	R      *pyrandom.Rand
	cached bool
	cx, cu float64
}

// Draw is one gauss() value's inputs: the pair's x = random()*2pi and
// u = 1.0 - random(), and which of the pair's two values it is.
type Draw struct {
	X, U   float64
	Second bool
}

// Next returns the draws of the next gauss() value.
func (n *Normals) Next() Draw {
	if n.cached {
		n.cached = false
		return Draw{n.cx, n.cu, true}
	}
	return n.draw()
}

// Next3 is three Next calls, in order, with the pairs drawn directly: one
// new pair after a cached value (which it uses; nothing stays cached),
// else two (the second one's second value stays cached).
func (n *Normals) Next3() [3]Draw {
	if n.cached {
		n.cached = false
		x := n.R.Random() * (2 * math.Pi)
		u := 1.0 - n.R.Random()
		return [3]Draw{{n.cx, n.cu, true}, {x, u, false}, {x, u, true}}
	}
	x1 := n.R.Random() * (2 * math.Pi)
	u1 := 1.0 - n.R.Random()
	x2 := n.R.Random() * (2 * math.Pi)
	u2 := 1.0 - n.R.Random()
	n.cx, n.cu, n.cached = x2, u2, true
	return [3]Draw{{x1, u1, false}, {x1, u1, true}, {x2, u2, false}}
}

// AppendPairs3 takes the draws of the next three values (Next3) and
// appends the (x, u) of the pairs it draws to xs and us.
func (n *Normals) AppendPairs3(xs, us []float64) ([]float64, []float64) {
	if n.cached {
		n.cached = false
		x := n.R.Random() * (2 * math.Pi)
		u := 1.0 - n.R.Random()
		return append(xs, x), append(us, u)
	}
	x1 := n.R.Random() * (2 * math.Pi)
	u1 := 1.0 - n.R.Random()
	x2 := n.R.Random() * (2 * math.Pi)
	u2 := 1.0 - n.R.Random()
	n.cx, n.cu, n.cached = x2, u2, true
	return append(xs, x1, x2), append(us, u1, u2)
}

// draw takes a new pair's draws and caches them.
func (n *Normals) draw() Draw {
	x := n.R.Random() * (2 * math.Pi)
	u := 1.0 - n.R.Random()
	n.cx, n.cu, n.cached = x, u, true
	return Draw{x, u, false}
}

// Skip consumes the draws of the next k gauss() values without returning
// them: those Next would take, k times, except that only the last pair's
// draws are read when its second value stays cached (k is odd after the
// cached value, if any, is used); the other pairs' four 32-bit outputs
// each are skipped in bulk (pyrandom.Rand.Skip).
func (n *Normals) Skip(k int) {
	if k <= 0 {
		return
	}
	if n.cached {
		n.cached = false
		k--
	}
	pairs := (k + 1) / 2
	if k%2 == 1 {
		n.R.Skip(4 * (pairs - 1))
		n.draw()
		return
	}
	n.R.Skip(4 * pairs)
}

// Restore sets the cached pair's draws as Cached reported them, for
// kernels that take a Normals' draws from the Rand's outputs themselves
// and hand the stream back.
func (n *Normals) Restore(d Draw, cached bool) {
	n.cx, n.cu, n.cached = d.X, d.U, cached
}

// Cached returns the draws of the pair whose second value gauss() has
// cached, if it has one: the next Next returns it with Second set.
func (n *Normals) Cached() (Draw, bool) {
	return Draw{n.cx, n.cu, true}, n.cached
}

// Exact is the standard normal value CPython's gauss() computes from d
// (glibc's log, sin and cos where pyrandom.ExactLibm).
func (d Draw) Exact() float64 {
	g := math.Sqrt(-2.0 * pyrandom.Log(d.U))
	if d.Second {
		return pyrandom.Sin(d.X) * g
	}
	return pyrandom.Cos(d.X) * g
}

// Approx is Exact computed with Go's math.Log, math.Sin and math.Cos, which
// are within pyrandom.GaussApproxErr of it (TestApproxWithinBound).
func (d Draw) Approx() float64 {
	g := math.Sqrt(-2.0 * math.Log(d.U))
	if d.Second {
		return math.Sin(d.X) * g
	}
	return math.Cos(d.X) * g
}

// ApproxCache is Approx remembering the last pair: its two values are
// computed together on first use (one log, one math.Sincos), so the
// second costs nothing.
type ApproxCache struct {
	x, u   float64
	z0, z1 float64
	ok     bool
}

// Approx is within pyrandom.GaussApproxErr of d.Exact() (as d.Approx(),
// with Sincos's kernels, which are Sin's and Cos's), using c's memo.
func (c *ApproxCache) Approx(d Draw) float64 {
	if !c.ok || c.u != d.U || c.x != d.X {
		g := math.Sqrt(-2.0 * math.Log(d.U))
		s, co := math.Sincos(d.X)
		c.x, c.u, c.z0, c.z1, c.ok = d.X, d.U, co*g, s*g, true
	}
	if d.Second {
		return c.z1
	}
	return c.z0
}

// Gauss is gauss(0.0, sigma): the next value, computed exactly.
func (n *Normals) Gauss(sigma float64) float64 {
	return 0.0 + float64(n.Next().Exact()*sigma)
}

// RoundIsSafe reports whether rounding w half to even gives the same
// integer for every value within tol of w: w is farther than tol (plus a
// few ulps of w) from the nearest half-integer. Callers pass the value they
// computed approximately and the bound on its error, and recompute it
// exactly when this is false.
func RoundIsSafe(w, tol float64) bool {
	h := math.Floor(w) + 0.5
	if a := math.Abs(w); a < 1<<20 {
		return math.Abs(w-h) > tol+0x1p-30 // 4 ulps of 2^20
	}
	ulp := math.Nextafter(math.Abs(w)+1, math.Inf(1)) - (math.Abs(w) + 1)
	return math.Abs(w-h) > tol+4*ulp
}

// RoundSafe is math.RoundToEven(w) and RoundIsSafe(w, tol) for |w| < 2^20
// (false beyond, so that callers recompute exactly), with one rounding:
// the nearest half-integer is 0.5 - |w - round(w)| away, computed exactly.
func RoundSafe(w, tol float64) (float64, bool) {
	r := math.RoundToEven(w)
	return r, 0.5-math.Abs(w-r) > tol+0x1p-30 && math.Abs(w) < 1<<20
}

// ClampRoundSafe is RoundSafe(float64(min(hi, max(0.0, v))*scale), tol)
// for 0 <= hi*scale < 2^20, without the builtins' NaN and signed-zero
// sequences and math.RoundToEven's feature check: the clamp is two
// compares (a NaN stays NaN, and -0 only gives -0 where they give +0,
// which rounds alike), and the rounding is (w + 2^52) - 2^52, exact
// half to even for 0 <= w < 2^52.
func ClampRoundSafe(v, hi, scale, tol float64) (float64, bool) {
	if v < 0 {
		v = 0
	}
	if v > hi {
		v = hi
	}
	w := float64(v * scale)
	r := float64(w+0x1p52) - 0x1p52
	return r, 0.5-math.Abs(w-r) > tol+0x1p-30
}

// ClampRound is math.RoundToEven(float64(min(hi, max(0.0, v))*scale)) for
// 0 <= hi*scale < 2^52 (ClampRoundSafe's rounding; a NaN gives NaN).
func ClampRound(v, hi, scale float64) float64 {
	if v < 0 {
		v = 0
	}
	if v > hi {
		v = hi
	}
	w := float64(v * scale)
	return float64(w+0x1p52) - 0x1p52
}

// KernelWindow is what a C kernel that takes the stream's outputs itself
// (draws.h, in coordinatesv1 and cropsv1) starts from: the Rand's current window
// (pyrandom.Rand.Window), cut to at most max outputs when max > 0 (tests
// shorten it), and gauss()'s cached pair's draws, if one is cached.
func (f *Front) KernelWindow(max int) (win []uint32, cached Draw, ok bool) {
	win = f.Rand.Window()
	if max > 0 && len(win) > max {
		win = win[:max]
	}
	cached, ok = f.Normals.Cached()
	return win, cached, ok
}

// KernelReturn hands the stream back after such a kernel: the window's
// first pos outputs taken (Rand.Advance), and the pair (x, u) cached when
// cached.
func (f *Front) KernelReturn(pos int, x, u float64, cached bool) {
	f.Rand.Advance(pos)
	f.Normals.Restore(Draw{X: x, U: u, Second: true}, cached)
}
