//go:build cgo

package cropsv1

/*
#include <stdint.h>
#include <string.h>

// cr_pick is picker.drawAll for draws j0 <= j < j1: for each x = xs[j],
// the atom the reference picks (picks[j]), and its residue counted.
//
// picker.draw finds the residue by a Fenwick descent: about ten steps,
// each a load whose address the step before decides, on the chain from
// one draw to the next (each draw's search reads the sums the previous
// draw's count changed). Here the residue is guessed instead in a tree of
// fan-out 8 over float64 sums (each node holds its 8 children's inclusive
// prefix sums; a level is one count of 8 compares), and only that search
// and the update of those sums are on the chain. The guess is then
// checked as picker.draw checks the residue its descent finds: the
// residue's exact prefix sum (the Fenwick tree's, a query whose loads do
// not depend on one another), the atom within it, and that atom's bounds
// farther than delta from x*W. A guess that fails (the float sums drift
// by a few ulps of W per draw, against delta's 2M+32) takes the slow
// path, as there; so every pick is the reference's, whatever the guess.

typedef struct { uint64_t hi, lo; } cp_u128; // picker's u128

typedef struct {
	int64_t m, nres, size, depth; // atoms, residues, Fenwick tree length, guess levels
	double dcoef;                 // (2m+32)*2^-53
	double wtf;                   // the guess's total
	int64_t slow;                 // draws that took the slow path
} cp_state;

typedef unsigned __int128 u128;
typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2i __attribute__((vector_size(16)));

static inline u128 cp_get(const cp_u128 *a) { return (u128)a->hi << 64 | a->lo; }
static inline void cp_put(cp_u128 *a, u128 v) { a->hi = (uint64_t)(v >> 64), a->lo = (uint64_t)v; }

// cp_float is u128.float, for a < 2^127: the low word converted exactly
// in two halves and rounded once (the C conversion of a uint64 branches on
// its top bit, which is random here), the high word exactly.
static inline double cp_float(u128 a) {
	uint64_t lo = (uint64_t)a;
	double dlo = (double)(int64_t)(lo >> 32) * 0x1p32 + (double)(int64_t)(lo & 0xffffffff);
	return ((double)(int64_t)(uint64_t)(a >> 64) * 0x1p64 + dlo) * 0x1p-80;
}

// cp_k is what a count k gives (pickK): w = 1/(1+k), the weight's change
// to the next count, fixed(w) and its change.
typedef struct {
	double w, dw;
	cp_u128 fix, dfix;
} cp_k;

// cp_fixed is fixed(w) for w in [2^-28, 2^16).
static inline u128 cp_fixed(double w) {
	uint64_t u;
	memcpy(&u, &w, sizeof u);
	int e = (int)(u >> 52 & 0x7ff) - 1023;
	uint64_t m = (u & ((1ull << 52) - 1)) | 1ull << 52;
	return (u128)m << (e + 28);
}

static inline v2d cp_load(const double *a) {
	v2d v;
	memcpy(&v, a, sizeof v);
	return v;
}

// cp_count8 is the number of the 8 values of e that are <= x.
static inline int64_t cp_count8(const double *e, double x) {
	v2d xv = {x, x};
	v2i c = (v2i)(cp_load(e) <= xv) + (v2i)(cp_load(e + 2) <= xv) + ((v2i)(cp_load(e + 4) <= xv) + (v2i)(cp_load(e + 6) <= xv));
	return -(c[0] + c[1]);
}

// cp_from8[i] selects the values i..7 of 8.
static const int64_t cp_from8[8][8] = {
	{-1, -1, -1, -1, -1, -1, -1, -1}, {0, -1, -1, -1, -1, -1, -1, -1}, {0, 0, -1, -1, -1, -1, -1, -1},
	{0, 0, 0, -1, -1, -1, -1, -1}, {0, 0, 0, 0, -1, -1, -1, -1}, {0, 0, 0, 0, 0, -1, -1, -1},
	{0, 0, 0, 0, 0, 0, -1, -1}, {0, 0, 0, 0, 0, 0, 0, -1},
};

// cp_add8 adds d to e[i..7] (the others get + 0.0, which leaves them).
static inline void cp_add8(double *e, int64_t i, double d) {
	v2d dv = {d, d};
	for (int q = 0; q < 8; q += 2) {
		v2i mk;
		memcpy(&mk, &cp_from8[i][q], sizeof mk);
		v2d v = cp_load(e + q) + (v2d)((v2i)dv & mk);
		memcpy(e + q, &v, sizeof v);
	}
}

// The guess's levels: level d has 8^d nodes of 9 values, a 0 and then the
// inclusive prefix sums of the node's 8 children (so that the sum before
// child c is value c, with no branch for c = 0), one level after the
// other in lv.
static inline void cp_levels(double *lv, int64_t D, double **lev) {
	int64_t nodes = 1;
	for (int64_t d = 0; d < D; d++) {
		lev[d] = lv;
		lv += 9 * nodes;
		nodes *= 8;
	}
}

// cr_pick_init fills the guess's levels from the weights.
static void cr_pick_init(cp_state *st, const int32_t *start, const double *w, double *lv) {
	int64_t D = st->depth, nres = st->nres;
	double *lev[8];
	cp_levels(lv, D, lev);
	// the leaves' level: the residues' weights in groups of 8; then each
	// level's sums are its children's totals
	int64_t n = 1;
	for (int64_t d = 1; d < D; d++)
		n *= 8;
	for (int64_t g = 0; g < n; g++) {
		double *e = lev[D - 1] + 9 * g, s = 0.0;
		e[0] = 0.0;
		for (int q = 0; q < 8; q++) {
			int64_t r = 8 * g + q;
			if (r < nres)
				s += (double)(start[r + 1] - start[r]) * w[r];
			e[q + 1] = s;
		}
	}
	for (int64_t d = D - 2; d >= 0; d--) {
		n /= 8;
		for (int64_t g = 0; g < n; g++) {
			double *e = lev[d] + 9 * g, s = 0.0;
			e[0] = 0.0;
			for (int q = 0; q < 8; q++) {
				s += lev[d + 1][9 * (8 * g + q) + 8];
				e[q + 1] = s;
			}
		}
	}
	st->wtf = lev[0][8];
}

// cp_slow is the slow path: the reference's cumsum and searchsorted.
__attribute__((noinline)) static int64_t cp_slow(double x, int64_t m, const int32_t *res, const double *w, double *cdf) {
	double c = 0.0;
	for (int64_t a = 0; a < m; a++) {
		c += w[res[a]];
		cdf[a] = c;
	}
	double rv = x * c;
	int64_t lo = 0, hi = m;
	while (lo < hi) {
		int64_t mid = (int64_t)((uint64_t)(lo + hi) >> 1);
		if (cdf[mid] > rv)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < m - 1 ? lo : m - 1;
}

static void cr_pick(cp_state *st, const double *xs, int64_t j0, int64_t j1, int32_t *picks, const int32_t *res,
		const int32_t *start, double *w, double *k, int32_t *kc, const cp_k *tab, cp_u128 *tree, cp_u128 *total,
		double *lv, double *cdf) {
	const int64_t m = st->m, nres = st->nres, size = st->size, D = st->depth;
	double *lev[8];
	cp_levels(lv, D, lev);
	u128 T = cp_get(total);
	double wtf = st->wtf;
	for (int64_t j = j0; j < j1; j++) {
		double x = xs[j];
		// the guess
		double rem = x * wtf;
		int64_t r = 0;
		for (int64_t d = 0; d < D; d++) {
			const double *e = lev[d] + 9 * r;
			int64_t c = cp_count8(e + 1, rem);
			c = c < 7 ? c : 7;
			rem -= e[c];
			r = 8 * r + c;
		}
		r = r < nres ? r : nres - 1;
		// the check (picker.draw's)
		double wt = cp_float(T);
		double rf = x * wt;
		double delta = st->dcoef * wt;
		int64_t n = start[r + 1] - start[r], idx = -1;
		u128 before = 0;
		for (int64_t q = r; q > 0; q -= q & -q)
			before += cp_get(&tree[q]);
		const cp_k *e = &tab[kc[r]];
		double wr = e->w;
		int64_t t = (int64_t)((rf - cp_float(before)) / wr);
		t = t > n - 1 ? n - 1 : t;
		t = t < 0 ? 0 : t;
		u128 fw = cp_get(&e->fix);
		u128 lower = before + fw * (uint64_t)t, upper = lower + fw;
		if (n > 0 && cp_float(lower) + delta < rf && rf + delta < cp_float(upper))
			idx = start[r] + t;
		if (__builtin_expect(idx < 0, 0)) {
			st->slow++;
			idx = cp_slow(x, m, res, w, cdf);
			r = res[idx];
			n = start[r + 1] - start[r];
		}
		picks[j] = (int32_t)idx;
		// picker.count(r), and the guess's sums
		int32_t kr = kc[r];
		const cp_k *ek = &tab[kr];
		kc[r] = kr + 1;
		k[r] = (double)(kr + 1);
		w[r] = tab[kr + 1].w;
		u128 dd = cp_get(&ek->dfix) * (uint64_t)n;
		T += dd;
		for (int64_t q = r + 1; q < size; q += q & -q)
			cp_put(&tree[q], cp_get(&tree[q]) + dd);
		double df = (double)n * ek->dw;
		wtf += df;
		for (int64_t d = 0; d < D; d++) {
			int64_t sh = 3 * (D - 1 - d);
			cp_add8(lev[d] + 9 * (r >> (sh + 3)) + 1, r >> sh & 7, df);
		}
	}
	cp_put(total, T);
	st->wtf = wtf;
}
*/
import "C"

import (
	"math"
	"slices"
	"unsafe"
)

// cp_u128 must be u128's layout, and cp_k pickK's.
var (
	_ = [1]int{}[unsafe.Sizeof(u128{})-unsafe.Sizeof(C.cp_u128{})]
	_ = [1]int{}[unsafe.Sizeof(pickK{})-unsafe.Sizeof(C.cp_k{})]
	_ = [1]int{}[unsafe.Offsetof(pickK{}.dfix)-unsafe.Offsetof(C.cp_k{}.dfix)]
)

// pickChunk bounds one cr_pick call's draws (about 10 µs).
const pickChunk = 256

// Test knobs: pickSkew scales the guess's total (most guesses near a
// boundary then go wrong, and the check must catch them); pickAllSlow
// fails every check (every draw takes the slow path).
var (
	pickSkew    float64
	pickAllSlow bool
)

// drawAllC is drawAll with the C kernel (cr_pick). ok is false, with
// nothing done, where the kernel does not apply: a weight could fall below
// 2^-28 (the fixed point's), or the residues need more than 8 levels.
func (p *picker) drawAllC(xs []float64, picks []int32) (_ []int32, ok bool) {
	m, L := len(p.res), len(p.w)
	if m == 0 || len(xs) == 0 {
		return picks, true
	}
	maxK := 0
	for _, k := range p.k {
		maxK = max(maxK, int(k))
	}
	// the guess's levels: 8^depth >= L leaves
	depth, leaves, n := 1, 8, 9
	for leaves < L {
		n += 9 * leaves
		depth, leaves = depth+1, 8*leaves
	}
	if !p.exactOK || maxK+len(xs)+1 >= 1<<28 || depth > 8 {
		return picks, false
	}
	p.kc = grow(p.kc, L)
	for r, k := range p.k {
		p.kc[r] = int32(k)
	}
	p.tab = pickTable(p.tab, maxK+len(xs)+1)
	p.lv = grow(p.lv, n)
	st := C.cp_state{m: C.int64_t(m), nres: C.int64_t(L), size: C.int64_t(len(p.tree)), depth: C.int64_t(depth),
		dcoef: C.double(float64(2*m+32) * 0x1p-53)}
	if pickAllSlow {
		st.dcoef = C.double(math.Inf(1))
	}
	C.cr_pick_init(&st, (*C.int32_t)(&p.start[0]), (*C.double)(&p.w[0]), (*C.double)(&p.lv[0]))
	st.wtf *= C.double(1 + pickSkew)
	n0 := len(picks)
	picks = slices.Grow(picks, len(xs))[:n0+len(xs)]
	out := picks[n0:]
	for j := 0; j < len(xs); j += pickChunk {
		C.cr_pick(&st, (*C.double)(&xs[0]), C.int64_t(j), C.int64_t(min(len(xs), j+pickChunk)), (*C.int32_t)(&out[0]),
			(*C.int32_t)(&p.res[0]), (*C.int32_t)(&p.start[0]), (*C.double)(&p.w[0]), (*C.double)(&p.k[0]),
			(*C.int32_t)(&p.kc[0]), (*C.cp_k)(unsafe.Pointer(&p.tab[0])), (*C.cp_u128)(unsafe.Pointer(&p.tree[0])),
			(*C.cp_u128)(unsafe.Pointer(&p.total)), (*C.double)(&p.lv[0]), (*C.double)(&p.cdf[0]))
	}
	p.slow += int(st.slow)
	return picks, true
}
