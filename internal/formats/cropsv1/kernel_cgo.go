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
	int64_t skip; // the Gaussian values to skip before the next draw
	int64_t ninc; // members written
	int32_t cached, need;
	double cx, cu; // the cached pair's draws
} cr_state;

typedef struct {
	int32_t atom;
	int32_t n[3];
} cr_member; // passes.go's member


static void cr_cands(cr_state *st, const cr_cfg *c, const uint32_t *w, int64_t nw, const int32_t *cand,
		const double *placed, cr_member *inc, int64_t max_cands) {
	int64_t k = st->k, pos = st->pos, skip = st->skip, ninc = st->ninc;
	int cached = st->cached;
	double cx = st->cx, cu = st->cu;
	int64_t end = k + max_cands < c->n ? k + max_cands : c->n;
	for (; k < end; k++) {
		int32_t a = cand[k];
		const double *p = placed + 3 * (int64_t)a;
		if (p[0] < c->flo[0] || p[0] > c->fhi[0] || p[1] < c->flo[1] || p[1] > c->fhi[1] || p[2] < c->flo[2] ||
				p[2] > c->fhi[2]) {
			skip += 3;
			continue;
		}
		// Normals.Skip(skip), then Next3 and the keep draw: at most
		// 4*pairs + 8 + 2 outputs
		int64_t q = pos;
		int cch = cached;
		double qx = cx, qu = cu;
		int64_t s = skip;
		if (s > 0 && cch) {
			cch = 0;
			s--;
		}
		int64_t pairs = (s + 1) / 2;
		if (q + 4 * pairs + 10 > nw) {
			st->need = 1;
			break;
		}
		if (s % 2 == 1) {
			q += 4 * (pairs - 1);
			qx = py_gauss_x(w + q);
			qu = py_gauss_u(w + q);
			q += 4;
			cch = 1;
		} else {
			q += 4 * pairs;
		}
		double dx[3], du[3];
		int second[3];
		if (cch) {
			double x = py_gauss_x(w + q), u = py_gauss_u(w + q);
			q += 4;
			dx[0] = qx, du[0] = qu, second[0] = 1;
			dx[1] = x, du[1] = u, second[1] = 0;
			dx[2] = x, du[2] = u, second[2] = 1;
			cch = 0;
		} else {
			double x1 = py_gauss_x(w + q), u1 = py_gauss_u(w + q);
			double x2 = py_gauss_x(w + q + 4), u2 = py_gauss_u(w + q + 4);
			q += 8;
			dx[0] = x1, du[0] = u1, second[0] = 0;
			dx[1] = x1, du[1] = u1, second[1] = 1;
			dx[2] = x2, du[2] = u2, second[2] = 0;
			qx = x2, qu = u2, cch = 1;
		}
		// the cheap bound on the axes where the atom lies outside the box,
		// then the values: first on those axes (the likeliest to leave it
		// out), then on the others; g per pair, once
		int rejected = 0, order[3], no = 0;
		for (int j = 0; j < 3; j++) {
			double d = 0.0;
			if (p[j] < c->lo[j])
				d = c->lo[j] - p[j];
			else if (p[j] > c->hi[j])
				d = p[j] - c->hi[j];
			double u = du[j];
			if (d > 0 && c->s2 * (1 - u) < d * d * u)
				rejected = 1;
			if (d > 0)
				order[no++] = j;
		}
		for (int j = 0; j < 3; j++) {
			double d = 0.0;
			if (p[j] < c->lo[j] || p[j] > c->hi[j])
				d = 1;
			if (!(d > 0))
				order[no++] = j;
		}
		int32_t n[3];
		double gs[3] = {0, 0, 0};
		for (int o = 0; o < 3 && !rejected; o++) {
			int j = order[o];
			// the axes sharing a pair share its g (0 and 1 unless the
			// first is the cached value, else 1 and 2)
			double g = gs[j];
			if (g == 0) {
				g = sqrt(-2.0 * log(du[j]));
				for (int i = 0; i < 3; i++)
					if (du[i] == du[j] && dx[i] == dx[j])
						gs[i] = g;
			}
			double z = second[j] ? sin(dx[j]) * g : cos(dx[j]) * g;
			double v = p[j] + (0.0 + z * c->sigma);
			if (!(v == v)) {
				st->need = 1; // Go takes the candidate from its start
				goto out;
			}
			double vc = v > 0.0 ? v : 0.0;
			vc = vc < 999.9 ? vc : 999.9;
			double t = vc * 10;
			n[j] = (int32_t)((t + 0x1p52) - 0x1p52);
			if (n[j] / 100 != c->bb[j])
				rejected = 1;
		}
		pos = q, cached = cch, cx = qx, cu = qu, skip = 0;
		if (rejected)
			continue;
		double keep = py_random(w + pos);
		pos += 2;
		if (keep >= c->keep)
			continue;
		inc[ninc].atom = a;
		inc[ninc].n[0] = n[0], inc[ninc].n[1] = n[1], inc[ninc].n[2] = n[2];
		ninc++;
	}
out:
	st->k = k;
	st->pos = pos;
	st->skip = skip;
	st->ninc = ninc;
	st->cached = cached;
	st->cx = cx;
	st->cu = cu;
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
		win := f.Rand.Window()
		if windowCap > 0 && len(win) > windowCap {
			win = win[:windowCap]
		}
		d, cached := f.Normals.Cached()
		st.pos, st.need, st.cx, st.cu, st.cached = 0, 0, C.double(d.X), C.double(d.U), 0
		if cached {
			st.cached = 1
		}
		C.cr_cands(&st, &c, (*C.uint32_t)(&win[0]), C.int64_t(len(win)), (*C.int32_t)(&flat[0]),
			(*C.double)(&f.Placed[0][0]), (*C.cr_member)(unsafe.Pointer(&inc[0])), candChunk)
		f.Rand.Advance(int(st.pos))
		f.Normals.Restore(coordfront.Draw{X: float64(st.cx), U: float64(st.cu), Second: true}, st.cached != 0)
		if st.need != 0 {
			f.Normals.Skip(int(st.skip))
			st.skip = 0
			if m, ok := g.candidate(f, cb, flat[st.k]); ok {
				inc[st.ninc] = m
				st.ninc++
			}
			st.k++
		}
	}
	f.Normals.Skip(int(st.skip))
	return inc[:st.ninc]
}
