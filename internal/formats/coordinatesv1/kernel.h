// kernel.h: the C of kernel_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_CCOORDV1_KERNEL_H
#define FOLDCORPUS_CCOORDV1_KERNEL_H

// no contraction of a*b+c into an FMA (cgo refuses -ffp-contract=off;
// the build targets no FMA instructions either)
#pragma GCC optimize("fp-contract=off")
#include <stdint.h>
#include <string.h>
#include <math.h>
#include "draws.h"

// The coordinate section's two loops for max_depth 3 (generate.go's
// drawEvents and writeEvents), the same operations in the same order:
// IEEE double arithmetic without contraction (fp-contract=off), the C
// library's log, sin and cos for the exact recomputations (as
// pyrandom.Log, Sin and Cos). Both are resumable, so that each call stays
// short (see confind's pair kernel: a long cgo call costs the runtime's
// monitor), and both stop before an event Go must take: drawing, one
// whose draws the window may not hold or whose depth only depth3 can
// decide; writing, one with a value outside the token range.

typedef struct {
	int32_t atom;
	int8_t depth;
} cc_event; // generate.go's event

typedef struct {
	int64_t m, budget;
	int32_t shift, force_first;
	double inv, eps, margin; // kernel3's
} cc_draw_cfg;

typedef struct {
	int64_t pos; // the next output of the window
	int64_t used, nev, np, hdr;
	int32_t cached; // the Gaussian stream's last pair (cx, cu) has its second value left
	                // (Go restores it in Normals, exact for any later draw)
	int32_t done, truncated, need;
	double cx, cu;
} cc_draw_state;

static inline double hat(double t, double c, double eps) {
	double a = 1.0 - 3.0 * fabs(t - c);
	return (a > 0.0 ? a : 0.0) + eps; // max(0.0, a) for a finite a
}

static inline int sign_bit(double x) {
	uint64_t b;
	memcpy(&b, &x, 8);
	return (int)(b >> 63);
}

// cc_draw is drawEvents from st, on the window w[0:nw] of the Rand's
// outputs (w[st->pos] the next), for at most max_events events. It
// returns when the section is done, or before an event Go must take
// (need): one that may need more outputs than the window holds, or whose
// depth only depth3 can decide.
static void cc_draw(cc_draw_state *st, const cc_draw_cfg *c, const uint32_t *w, int64_t nw,
		const int32_t *res, const uint8_t *vocab, const uint8_t *pos16, const uint8_t *vocab16,
		cc_event *ev, double *xs, double *us, int64_t max_events) {
	int64_t pos = st->pos, used = st->used, nev = st->nev, np = st->np, hdr = st->hdr;
	int cached = st->cached;
	double cx = st->cx, cu = st->cu;
	const uint32_t m = (uint32_t)c->m;
	const int sh = c->shift;
	for (int64_t e = 0; e < max_events; e++) {
		int64_t p = pos;
		uint32_t v;
		for (;;) { // randbelow(m)
			if (p >= nw) {
				st->need = 1;
				goto out;
			}
			v = w[p++] >> sh;
			if (v < m)
				break;
		}
		if (p + 10 > nw) { // the depth's draw and two pairs
			st->need = 1;
			goto out;
		}
		int depth = 3;
		if (!(nev == 0 && c->force_first)) {
			double u = py_random(w + p);
			p += 2;
			double t = (double)used * c->inv;
			double w0 = hat(t, 0.0, c->eps), w1 = hat(t, 0.5, c->eps), w2 = hat(t, 1.0, c->eps);
			double x = u * (w0 + w1 + w2);
			double c1 = w0, c2 = c1 + w1;
			if (!(fabs(x - c1) > c->margin && fabs(x - c2) > c->margin)) {
				st->need = 1;
				goto out;
			}
			depth = 3 - sign_bit(x - c1) - sign_bit(x - c2);
		}
		int64_t cost = 2 + depth;
		if (used + cost > c->budget) {
			st->truncated = 1;
			st->done = 1;
			pos = p;
			break;
		}
		if (cached) {
			xs[np] = py_gauss_x(w + p);
			us[np] = py_gauss_u(w + p);
			p += 4;
			np++;
			cached = 0;
		} else {
			xs[np] = py_gauss_x(w + p);
			us[np] = py_gauss_u(w + p);
			xs[np + 1] = cx = py_gauss_x(w + p + 4);
			us[np + 1] = cu = py_gauss_u(w + p + 4);
			p += 8;
			np += 2;
			cached = 1;
		}
		ev[nev].atom = (int32_t)v;
		ev[nev].depth = (int8_t)depth;
		nev++;
		used += cost;
		hdr += pos16[16 * (int64_t)res[v] + 15] + vocab16[16 * (int64_t)vocab[v] + 15];
		pos = p;
	}
out:
	st->pos = pos;
	st->used = used;
	st->nev = nev;
	st->np = np;
	st->hdr = hdr;
	st->cached = cached;
	st->cx = cx;
	st->cu = cu;
}

typedef struct {
	double sig[3], tol[3];
	int64_t z0, nev;
} cc_write_cfg;

typedef struct {
	int64_t k, out, distinct, tokens;
	int64_t counts[3];
} cc_write_state;

// cc_write is writeEvents for max_depth 3 (scale 1, clamp 999) from event
// st->k, for at most max_events events, into out at st->out. dig[n] holds
// the digits of n in 0..999 (hundreds, tens, ones) in 16-bit lanes. It
// stops early at an event with a value outside [0, 999] after the clamp (a
// NaN), which Go's loop then writes as it does.
static void cc_write(cc_write_state *st, const cc_write_cfg *c, const cc_event *ev, const double *zs,
		const double *xs, const double *us, const double *placed, const int32_t *res, const uint8_t *vocab,
		const uint64_t *dig,
		const uint8_t *pos16, const uint8_t *vocab16, const uint8_t *xyz16, uint8_t *out, uint8_t *mentioned,
		int64_t max_events) {
	int64_t k = st->k, o = st->out, distinct = st->distinct, tokens = st->tokens;
	int64_t end = k + max_events < c->nev ? k + max_events : c->nev;
	for (; k < end; k++) {
		int32_t a = ev[k].atom;
		int dep = ev[k].depth;
		double s = c->sig[dep - 1], tol = c->tol[dep - 1];
		int64_t zi = c->z0 + 3 * k;
		const double *p = placed + 3 * (int64_t)a;
		int n[3];
		for (int j = 0; j < 3; j++) {
			double v = p[j] + (0.0 + zs[zi + j] * s);
			double vc = v;
			if (vc < 0)
				vc = 0;
			if (vc > 999.0)
				vc = 999.0;
			double r = (vc + 0x1p52) - 0x1p52;
			if (!(0.5 - fabs(vc - r) > tol + 0x1p-30)) {
				int64_t q = zi + j;
				double g = sqrt(-2.0 * log(us[q / 2]));
				double z = (q & 1) ? sin(xs[q / 2]) * g : cos(xs[q / 2]) * g;
				v = p[j] + (0.0 + z * s);
				if (!(v == v))
					goto out; // NaN: Go's loop writes it
				vc = v > 0.0 ? v : 0.0;
				vc = vc < 999.0 ? vc : 999.0;
				r = (vc + 0x1p52) - 0x1p52;
			}
			n[j] = (int)r;
		}
		const uint8_t *pt = pos16 + 16 * (int64_t)res[a];
		memcpy(out + o, pt, 16);
		o += pt[15];
		const uint8_t *vt = vocab16 + 16 * (int64_t)vocab[a];
		memcpy(out + o, vt, 16);
		o += vt[15];
		// the three tokens' indices, one per 16-bit lane (each < 1000)
		uint64_t ix = 100 * dig[n[0]] + 10 * dig[n[1]] + dig[n[2]];
		int64_t i1 = ix & 0xffff, i2 = ix >> 16 & 0xffff, i3 = ix >> 32;
		memcpy(out + o, xyz16 + 16 * i1, 16);
		memcpy(out + o + 10, xyz16 + 16 * i2, 16);
		memcpy(out + o + 20, xyz16 + 16 * i3, 16);
		o += 10 * dep;
		tokens += 2 + dep;
		st->counts[dep - 1]++;
		distinct += !mentioned[a];
		mentioned[a] = 1;
	}
out:
	st->k = k;
	st->out = o;
	st->distinct = distinct;
	st->tokens = tokens;
}

#endif // FOLDCORPUS_CCOORDV1_KERNEL_H
