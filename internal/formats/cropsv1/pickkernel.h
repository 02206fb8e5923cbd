// pickkernel.h: the C of pickkernel_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_CROPSV1_PICKKERNEL_H
#define FOLDCORPUS_CROPSV1_PICKKERNEL_H

#include <stdint.h>
#include <string.h>

// cr_pick is picker.drawAll for draws j0 <= j < j1: for each x = xs[j],
// the atom the reference picks (picks[j]), and its residue counted.
//
// picker.draw finds the residue by a Fenwick descent over exact sums:
// about ten steps, each a load whose address the step before decides, and
// an update as long. Here the residue is found instead in a tree of
// fan-out 8 over float64 sums (each node holds its 8 children's inclusive
// prefix sums; a level is one count of 8 compares): the descent leaves
// rem, x times the tree's total less the sums before the residue found,
// and the atom is the residue's floor(rem/w)-th. Those sums drift from
// the exact ones by a bounded amount (cp_margin), so when rem lies
// farther than the margin from the atom's bounds, the atom is the one
// picker.draw would take; otherwise (rarely) the draw takes the slow path,
// the reference's own cumsum, as there. So every pick is the reference's.
//
// The bound. Let U = 2^-53 and Wmax the exact total at the start (the
// weights only fall, so every exact sum stays <= Wmax). cr_pick_init's
// sums of at most 8 products, level over level, are within (8D+2)U of
// their value relative to it, so within (8D+2)U*Wmax; each of the K draws
// since adds to a value at most once, n*dw rounded and the sum rounded,
// 2.01U*Wmax at most (dw, the change of a weight, is exact). So every
// value, the total included, is within E = ((8D+2) + 2.01K)U*Wmax of its
// exact sum. rem takes x*total and D subtractions: within (D+1)(E +
// 1.01U*Wmax) of x*W less the exact sum before the residue. picker.draw
// accepts an atom whose exact bounds lie farther than (2M+32)U*W from
// x*W (rounded twice, 2.01U*W); t*w and the comparisons round three times
// more. cp_margin's (3M + 64 + (D+2)(8D+4+3K))U*Wmax covers all of it.

typedef struct {
	int64_t m, nres, depth; // atoms, residues, the tree's levels
	double mbase, mslope;   // cp_margin's (3M + 64 + (D+2)(8D+4))U and (D+2)*3U
	double wmax;            // a bound on every exact sum: the total at the start, with room
	double wtf;             // the tree's total
	int64_t slow;           // draws that took the slow path
} cp_state;

typedef double v2d __attribute__((vector_size(16)));
typedef int64_t v2i __attribute__((vector_size(16)));

// cp_k is what a count k gives (pickK): w = 1/(1+k) and the weight's
// change to the next count.
typedef struct {
	double w, dw;
} cp_k;

static inline v2d cp_load(const double *a) {
	v2d v;
	memcpy(&v, a, sizeof v);
	return v;
}

// cp_count8 is the number of the 8 values of e that are <= x: scalar
// compares summed in a tree (the vector compares' masks, moved back to a
// general register, came later on the descent's chain).
static inline int64_t cp_count8(const double *e, double x) {
	return (((int64_t)(e[0] <= x) + (e[1] <= x)) + ((int64_t)(e[2] <= x) + (e[3] <= x))) +
			(((int64_t)(e[4] <= x) + (e[5] <= x)) + ((int64_t)(e[6] <= x) + (e[7] <= x)));
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

// cp_margin is the bound above for draw K.
static inline double cp_margin(const cp_state *st, int64_t K) {
	return (st->mbase + st->mslope * (double)K) * st->wmax;
}

static void cr_pick(cp_state *st, const double *xs, int64_t j0, int64_t j1, int32_t *picks, const int32_t *res,
		const int32_t *start, double *w, double *k, int32_t *kc, const cp_k *tab, double *lv, double *cdf) {
	const int64_t m = st->m, nres = st->nres, D = st->depth;
	double *lev[8];
	cp_levels(lv, D, lev);
	double wtf = st->wtf;
	for (int64_t j = j0; j < j1; j++) {
		double x = xs[j];
		double rem = x * wtf;
		int64_t r = 0;
		for (int64_t d = 0; d < D; d++) {
			const double *e = lev[d] + 9 * r;
			int64_t c = cp_count8(e + 1, rem);
			c = c < 7 ? c : 7;
			rem -= e[c];
			r = 8 * r + c;
		}
		// the check: rem within the atom t of residue r, farther than the
		// margin from both of its bounds
		int64_t idx = -1, n = 0;
		if (r < nres) {
			n = start[r + 1] - start[r];
			int32_t kr = kc[r];
			double wr = tab[kr].w, mg = cp_margin(st, j);
			int64_t t = (int64_t)(rem * (double)(kr + 1));
			t = t > n - 1 ? n - 1 : t;
			t = t < 0 ? 0 : t;
			double lower = (double)t * wr, upper = (double)(t + 1) * wr;
			if (n > 0 && lower + mg < rem && rem + mg < upper)
				idx = start[r] + t;
		}
		if (__builtin_expect(idx < 0, 0)) {
			st->slow++;
			idx = cp_slow(x, m, res, w, cdf);
			r = res[idx];
			n = start[r + 1] - start[r];
		}
		picks[j] = (int32_t)idx;
		// picker.count(r), and the tree's sums
		int32_t kr = kc[r];
		kc[r] = kr + 1;
		k[r] = (double)(kr + 1);
		w[r] = tab[kr + 1].w;
		double df = (double)n * tab[kr].dw;
		wtf += df;
		for (int64_t d = 0; d < D; d++) {
			int64_t sh = 3 * (D - 1 - d);
			cp_add8(lev[d] + 9 * (r >> (sh + 3)) + 1, r >> sh & 7, df);
		}
	}
	st->wtf = wtf;
}

#endif // FOLDCORPUS_CROPSV1_PICKKERNEL_H
