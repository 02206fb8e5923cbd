//go:build cgo

package cropsv1

/*
#cgo CFLAGS: -O2 -fno-builtin-log -fno-builtin-sin -fno-builtin-cos -I${SRCDIR}/../../pyrandom
#cgo LDFLAGS: -lm
// no contraction of a*b+c into an FMA (cgo refuses -ffp-contract=off;
// the build targets no FMA instructions either)
#pragma GCC optimize("fp-contract=off")
#include <stdint.h>
#include <math.h>
#include "draws.h"

// cr_cands is passes.go's candidates loop (candidate for each atom that is
// not far), on a window of the Rand's outputs: the same draws, and the
// Gaussian values computed exactly with the C library's log, sin and cos
// (pyrandom.Log, Sin and Cos; the Go loop computes them approximately and
// exactly where the approximation could change a rounding, which gives
// the same values). It stops at a candidate whose draws the window may not
// hold, or whose value is a NaN (need: Go takes that candidate), and after
// max_cands candidates.

typedef struct {
	double lo[3], hi[3], flo[3], fhi[3];
	double s2, sigma, keep;
	int32_t bb[3];
	int64_t n; // candidates
} cr_cfg;

typedef struct {
	int64_t k;    // the next candidate
	int64_t pos;  // the next output of the window
	int64_t ninc; // members written
	int32_t cached, need;
	double cx, cu; // the cached pair's draws
} cr_state;

typedef struct {
	int32_t atom;
	int32_t n[3];
} cr_member; // passes.go's member


// The kernel's stream, between keep draws (a segment): the Gaussian
// values are numbered from 0; value 0 is the cached one when c0 = 1 (its
// pair's draws cx0, cu0), and the others come in pairs of 4 outputs from
// w[pos0]: value t >= c0 is pair (t - c0)/2's first (cos) or second (sin).
// A candidate takes 3 values whether or not its draws are looked at, so
// candidate i of a segment (counted from where T values had been taken)
// takes values T + 3i .. T + 3i + 2, with no state to carry from one
// candidate to the next: the candidates are screened (far from the box, or
// cut by the cheap bound) in a loop with no branch but its exit.

typedef struct {
	int64_t pos0, c0; // the segment's first output and cached value
	double cx0, cu0;
} cr_seg;

// cr_draw sets x, u and second for value t of the segment.
static inline void cr_draw(const cr_seg *sg, const uint32_t *w, int64_t t, double *x, double *u, int *second) {
	if (t < sg->c0) {
		*x = sg->cx0, *u = sg->cu0, *second = 1;
		return;
	}
	const uint32_t *q = w + sg->pos0 + 4 * ((t - sg->c0) >> 1);
	*x = py_gauss_x(q), *u = py_gauss_u(q), *second = (int)((t - sg->c0) & 1);
}

// cr_end is the output after the values 0..t-1 (their pairs), and
// whether the last pair's second value is left cached.
static inline int64_t cr_end(const cr_seg *sg, int64_t t, int *cached) {
	if (t < sg->c0) {
		*cached = 1;
		return sg->pos0;
	}
	int64_t f = t - sg->c0;
	*cached = (int)(f & 1);
	return sg->pos0 + 4 * ((f + 1) >> 1);
}

// cr_settle writes the stream after the segment's values 0..t-1 to st.
static void cr_settle(cr_state *st, const cr_seg *sg, const uint32_t *w, int64_t t) {
	int cached;
	st->pos = cr_end(sg, t, &cached);
	st->cached = cached;
	if (cached && t >= sg->c0) { // a new pair's second value
		const uint32_t *q = w + st->pos - 4;
		st->cx = py_gauss_x(q), st->cu = py_gauss_u(q);
	} else if (cached) {
		st->cx = sg->cx0, st->cu = sg->cu0;
	}
}

static void cr_cands(cr_state *st, const cr_cfg *c, const uint32_t *w, int64_t nw, const int32_t *cand,
		const double *placed, cr_member *inc, int64_t max_cands) {
	int64_t k = st->k, ninc = st->ninc;
	cr_seg sg = {st->pos, st->cached, st->cx, st->cu};
	int64_t T = 0; // values taken in the segment
	int64_t end = k + max_cands < c->n ? k + max_cands : c->n;
	st->need = 0;
	while (k < end) {
		// screen: the first candidate from k that is not far and not cut
		// by the cheap bound, or whose outputs (and a keep draw's) the
		// window may not hold
		int64_t i = k;
		int stop = 0;
		for (; i < end; i++) {
			int64_t t = T + 3 * (i - k);
			int cc;
			if (cr_end(&sg, t + 3, &cc) + 2 > nw) {
				st->need = 1;
				break;
			}
			const double *p = placed + 3 * (int64_t)cand[i];
			int far = (p[0] < c->flo[0]) | (p[0] > c->fhi[0]) | (p[1] < c->flo[1]) | (p[1] > c->fhi[1]) |
					(p[2] < c->flo[2]) | (p[2] > c->fhi[2]);
			// the values' u: of the pair of value t (or the cached value)
			// and of the next pair, which the three values span
			int64_t f0 = t - sg.c0, pa = f0 >= 0 ? f0 >> 1 : -1; // -1: the cached value
			const uint32_t *qb = w + sg.pos0 + 4 * (pa + 1);
			double ua = f0 >= 0 ? py_gauss_u(qb - 4) : sg.cu0, ub = py_gauss_u(qb);
			int rejected = 0;
			for (int j = 0; j < 3; j++) {
				int64_t f = f0 + j;
				double u = (f >= 0 ? f >> 1 : -1) == pa ? ua : ub;
				double lo = c->lo[j] - p[j], hi = p[j] - c->hi[j];
				double d = lo > 0.0 ? lo : 0.0;
				d = hi > d ? hi : d;
				rejected |= (d > 0) & (c->s2 * (1 - u) < d * d * u);
			}
			if (!(far | rejected)) {
				stop = 1;
				break;
			}
		}
		T += 3 * (i - k), k = i;
		if (!stop)
			break;
		// candidate k: its values, first on the axes where it lies outside
		// the box (the likeliest to leave it out), then on the others; g
		// per pair, once
		const double *p = placed + 3 * (int64_t)cand[k];
		double dx[3], du[3];
		int second[3], order[3], no = 0;
		for (int j = 0; j < 3; j++) {
			cr_draw(&sg, w, T + j, &dx[j], &du[j], &second[j]);
			if (p[j] < c->lo[j] || p[j] > c->hi[j])
				order[no++] = j;
		}
		for (int j = 0; j < 3; j++)
			if (!(p[j] < c->lo[j] || p[j] > c->hi[j]))
				order[no++] = j;
		int32_t n[3];
		double gs[3] = {0, 0, 0};
		int out = 0;
		for (int o = 0; o < 3 && !out; o++) {
			int j = order[o];
			double g = gs[j];
			if (g == 0) {
				g = sqrt(-2.0 * log(du[j]));
				for (int q = 0; q < 3; q++)
					if (du[q] == du[j] && dx[q] == dx[j])
						gs[q] = g;
			}
			double z = second[j] ? sin(dx[j]) * g : cos(dx[j]) * g;
			double v = p[j] + (0.0 + z * c->sigma);
			if (!(v == v)) {
				st->need = 1; // Go takes the candidate from its start
				goto done;
			}
			double vc = v > 0.0 ? v : 0.0;
			vc = vc < 999.9 ? vc : 999.9;
			double t = vc * 10;
			n[j] = (int32_t)((t + 0x1p52) - 0x1p52);
			out = n[j] / 100 != c->bb[j];
		}
		T += 3, k++;
		if (out)
			continue;
		// the keep draw, after the candidate's pairs; a new segment
		// starts after it
		int cached;
		int64_t q = cr_end(&sg, T, &cached);
		double keep = py_random(w + q);
		if (cached && T >= sg.c0)
			sg.cx0 = py_gauss_x(w + q - 4), sg.cu0 = py_gauss_u(w + q - 4);
		sg.pos0 = q + 2, sg.c0 = cached, T = 0;
		if (keep >= c->keep)
			continue;
		inc[ninc].atom = cand[k - 1];
		inc[ninc].n[0] = n[0], inc[ninc].n[1] = n[1], inc[ninc].n[2] = n[2];
		ninc++;
	}
done:
	st->k = k;
	st->ninc = ninc;
	cr_settle(st, &sg, w, T);
}

// cr_cell is cell(v): round(clamp(v, 0, 999.9) * 10) // 100, with
// ClampRound's operations.
static inline int64_t cr_cell(double v) {
	v = v < 0 ? 0 : v;
	v = v > 999.9 ? 999.9 : v;
	double w = v * 10;
	return (int64_t)((w + 0x1p52) - 0x1p52) / 100;
}

// cr_cells is cells.go's cells (the bounds kept in registers).
static void cr_cells(const double *coords, int64_t m, int32_t *key, int32_t *idx, int64_t *lohi) {
	int64_t lo0 = 100, lo1 = 100, lo2 = 100, hi0 = 0, hi1 = 0, hi2 = 0;
	for (int64_t i = 0; i < m; i++) {
		int64_t b0 = cr_cell(coords[3 * i]), b1 = cr_cell(coords[3 * i + 1]), b2 = cr_cell(coords[3 * i + 2]);
		lo0 = b0 < lo0 ? b0 : lo0, lo1 = b1 < lo1 ? b1 : lo1, lo2 = b2 < lo2 ? b2 : lo2;
		hi0 = b0 > hi0 ? b0 : hi0, hi1 = b1 > hi1 ? b1 : hi1, hi2 = b2 > hi2 ? b2 : hi2;
		key[i] = (int32_t)(b0 * 10000 + b1 * 100 + b2);
		idx[i] = (int32_t)(b0 << 16 | b1 << 8 | b2);
	}
	lohi[0] = lo0, lohi[1] = lo1, lohi[2] = lo2, lohi[3] = hi0, lohi[4] = hi1, lohi[5] = hi2;
}

// cr_sort is the rest of cellIndex.build: the counting sort of the atoms
// by block index (start has size+1 entries, all 0).
static void cr_sort(int32_t *idx, int64_t m, int64_t n12, int64_t n2, int64_t base, int32_t *start, int64_t size,
		int32_t *order) {
	for (int64_t i = 0; i < m; i++) {
		int32_t v = idx[i];
		int32_t b = (int32_t)((int64_t)(v >> 16) * n12 + (int64_t)(v >> 8 & 0xff) * n2 + (v & 0xff) - base);
		idx[i] = b;
		start[b + 1]++;
	}
	for (int64_t i = 0; i < size; i++)
		start[i + 1] += start[i];
	for (int64_t i = 0; i < m; i++)
		order[start[idx[i]]++] = (int32_t)i;
	for (int64_t b = size; b > 0; b--)
		start[b] = start[b - 1];
	start[0] = 0;
}
*/
import "C"

import (
	"unsafe"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront"
)

// kernelOK: the C kernel is built in.
const kernelOK = true

// candChunk bounds one cr_cands call's candidates (about 10 µs).
const candChunk = 512

// cr_member must be member's layout.
var (
	_ = [1]int{}[unsafe.Sizeof(member{})-unsafe.Sizeof(C.cr_member{})]
	_ = [1]int{}[unsafe.Offsetof(member{}.n)-unsafe.Offsetof(C.cr_member{}.n)]
)

// windowCap, when positive, shortens the windows the kernel gets, so
// that tests send many candidates to candidate.
var windowCap int

// candidatesC is candidates with the C kernel (cr_cands) on windows of
// the Rand's outputs (pyrandom.Rand.Window): the kernel hands the stream
// back after each call (Rand.Advance, Normals.Restore), and a candidate
// it stops at is taken by candidate.
func (g *Generator) candidatesC(f *coordfront.Front, cb *cropBox, flat []int32, included []member) []member {
	if len(flat) == 0 {
		return included
	}
	c := C.cr_cfg{s2: C.double(cb.s2), sigma: C.double(cb.sigma), keep: C.double(cb.keep), n: C.int64_t(len(flat))}
	for j := range 3 {
		c.lo[j], c.hi[j], c.flo[j], c.fhi[j] = C.double(cb.lo[j]), C.double(cb.hi[j]), C.double(cb.flo[j]), C.double(cb.fhi[j])
		c.bb[j] = C.int32_t(cb.bb[j])
	}
	if need := len(included) + len(flat); cap(included) < need {
		included = append(make([]member, 0, need), included...)
	}
	inc := included[:cap(included)]
	st := C.cr_state{ninc: C.int64_t(len(included))}
	for st.k < c.n {
		win, d, cached := f.KernelWindow(windowCap)
		st.pos, st.need, st.cx, st.cu, st.cached = 0, 0, C.double(d.X), C.double(d.U), 0
		if cached {
			st.cached = 1
		}
		C.cr_cands(&st, &c, (*C.uint32_t)(&win[0]), C.int64_t(len(win)), (*C.int32_t)(&flat[0]),
			(*C.double)(&f.Placed[0][0]), (*C.cr_member)(unsafe.Pointer(&inc[0])), candChunk)
		f.KernelReturn(int(st.pos), float64(st.cx), float64(st.cu), st.cached != 0)
		if st.need != 0 {
			if m, ok := g.candidate(f, cb, flat[st.k]); ok {
				inc[st.ninc] = m
				st.ninc++
			}
			st.k++
		}
	}
	return inc[:st.ninc]
}

// cellsC is cells with the C kernel (cr_cells).
func cellsC(coords [][3]float64, trueCell, idx []int32) (lo, hi [3]int) {
	if len(coords) == 0 {
		return [3]int{grid, grid, grid}, [3]int{}
	}
	var lohi [6]C.int64_t
	C.cr_cells((*C.double)(&coords[0][0]), C.int64_t(len(coords)), (*C.int32_t)(&trueCell[0]), (*C.int32_t)(&idx[0]), &lohi[0])
	for j := range 3 {
		lo[j], hi[j] = int(lohi[j]), int(lohi[3+j])
	}
	return lo, hi
}

// sortC is the counting sort of cellIndex.build with the C kernel (cr_sort).
func sortC(idx []int32, n12, n2, base int, start, order []int32) {
	if len(idx) == 0 {
		return
	}
	C.cr_sort((*C.int32_t)(&idx[0]), C.int64_t(len(idx)), C.int64_t(n12), C.int64_t(n2), C.int64_t(base),
		(*C.int32_t)(&start[0]), C.int64_t(len(start)-1), (*C.int32_t)(&order[0]))
}
