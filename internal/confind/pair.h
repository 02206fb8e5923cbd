// pair.h: the C of pair_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_CONFIND_PAIR_H
#define FOLDCORPUS_CONFIND_PAIR_H

#pragma GCC optimize("fp-contract=off")
#include <immintrin.h>
#include <stdint.h>

// pair_* compute pairGo's numerator for positions i < j and add the
// collision masses to cp: the same decisions (comparisons) and the same
// additions in the same order. Boxes are 6 doubles (lo x y z, hi x y z);
// x, y, z are the contact atoms' coordinates (each padded by 4 values);
// scratch: near (nj), nbox (6 * (nj rounded up to 4)), fa, frb (nj), ai
// (the most contact atoms of a rotamer).
typedef struct {
	int32_t i0, i1, j0, j1;
	const double *rbox, *rgrown, *pgi, *pgj;
	const int32_t *rat;
	const double *x, *y, *z, *w;
	double *cp;
	double c2;
	int32_t *near, *fa, *frb, *ai;
	double *nbox;
} pair_args;

// disjoint and outside: the same comparisons, or-ed without branches (the
// outcomes are random)
static inline int disjoint(const double *b, const double *o) {
	return (b[0] > o[3]) | (o[0] > b[3]) | (b[1] > o[4]) | (o[1] > b[4]) | (b[2] > o[5]) | (o[2] > b[5]);
}

static inline int outside(double px, double py, double pz, const double *b) {
	return (px < b[0]) | (b[3] < px) | (py < b[1]) | (b[4] < py) | (pz < b[2]) | (b[5] < pz);
}

// atom_in loads atom ai[q] of ra into px, py, pz and reports whether it
// lies in box b (the box test before its distances to a rotamer's atoms).
static inline int atom_in(const pair_args *p, int q, const double *b, double *px, double *py, double *pz) {
	int a = p->ai[q];
	*px = p->x[a];
	*py = p->y[a];
	*pz = p->z[a];
	return !outside(*px, *py, *pz, b);
}

// firsts_* set the first contacts of ra's atoms ai[0:na] with the rotamers
// near[0:nn] (after the box test) into fa (index in ai) and frb, and
// return their number.
static int firsts_any(const pair_args *p, int ra, int na, int nn) {
	const double *ba = p->rbox + 6 * (long)ra;
	int nf = 0;
	for (int k = 0; k < nn; k++) {
		int rb = p->near[k];
		const double *bb = p->rgrown + 6 * (long)rb;
		if (disjoint(ba, bb)) {
			continue;
		}
		int b0 = p->rat[rb], b1 = p->rat[rb + 1];
		for (int q = 0; q < na; q++) {
			double px, py, pz;
			if (!atom_in(p, q, bb, &px, &py, &pz)) {
				continue;
			}
			for (int b = b0; b < b1; b++) {
				double dx = px - p->x[b], dy = py - p->y[b], dz = pz - p->z[b];
				if ((dx * dx + dy * dy) + dz * dz <= p->c2) {
					p->fa[nf] = q;
					p->frb[nf] = rb;
					nf++;
					goto next;
				}
			}
		}
	next:;
	}
	return nf;
}

// qmax bounds the contact atoms of a rotamer that firsts_avx2 lays out on
// its stack (firsts_any takes the rare others).
#define qmax 64

// firsts_avx2 is firsts_any with four near rotamers' box tests at once,
// four of ra's atoms' box tests at once, and one atom against four at once.
__attribute__((target("avx2,bmi"))) static int firsts_avx2(const pair_args *p, int ra, int na, int nn) {
	if (na > qmax) {
		return firsts_any(p, ra, na, nn);
	}
	const double *ba = p->rbox + 6 * (long)ra;
	int cap = (nn + 3) & ~3;
	const double *nb = p->nbox;
	__m256d lo0 = _mm256_set1_pd(ba[0]), lo1 = _mm256_set1_pd(ba[1]), lo2 = _mm256_set1_pd(ba[2]);
	__m256d hi0 = _mm256_set1_pd(ba[3]), hi1 = _mm256_set1_pd(ba[4]), hi2 = _mm256_set1_pd(ba[5]);
	__m256d c2 = _mm256_set1_pd(p->c2);
	// ra's atoms by coordinate, padded to four
	double qx[qmax + 4], qy[qmax + 4], qz[qmax + 4];
	int qcap = (na + 3) & ~3;
	for (int q = 0; q < qcap; q++) {
		int a = q < na ? p->ai[q] : p->ai[0];
		qx[q] = p->x[a];
		qy[q] = p->y[a];
		qz[q] = p->z[a];
	}
	int nf = 0;
	for (int k0 = 0; k0 < cap; k0 += 4) {
		// misses: bb.hi < ba.lo or ba.hi < bb.lo on an axis
		__m256d m = _mm256_or_pd(_mm256_cmp_pd(_mm256_loadu_pd(nb + 3 * cap + k0), lo0, _CMP_LT_OQ),
			_mm256_cmp_pd(hi0, _mm256_loadu_pd(nb + k0), _CMP_LT_OQ));
		m = _mm256_or_pd(m, _mm256_cmp_pd(_mm256_loadu_pd(nb + 4 * cap + k0), lo1, _CMP_LT_OQ));
		m = _mm256_or_pd(m, _mm256_cmp_pd(hi1, _mm256_loadu_pd(nb + cap + k0), _CMP_LT_OQ));
		m = _mm256_or_pd(m, _mm256_cmp_pd(_mm256_loadu_pd(nb + 5 * cap + k0), lo2, _CMP_LT_OQ));
		m = _mm256_or_pd(m, _mm256_cmp_pd(hi2, _mm256_loadu_pd(nb + 2 * cap + k0), _CMP_LT_OQ));
		unsigned pass = ~(unsigned)_mm256_movemask_pd(m) & 15u;
		while (pass) {
			int k = k0 + __builtin_ctz(pass);
			pass &= pass - 1;
			if (k >= nn) {
				break;
			}
			int rb = p->near[k];
			const double *bb = p->rgrown + 6 * (long)rb;
			int b0 = p->rat[rb], b1 = p->rat[rb + 1];
			__m256d blo0 = _mm256_set1_pd(bb[0]), blo1 = _mm256_set1_pd(bb[1]), blo2 = _mm256_set1_pd(bb[2]);
			__m256d bhi0 = _mm256_set1_pd(bb[3]), bhi1 = _mm256_set1_pd(bb[4]), bhi2 = _mm256_set1_pd(bb[5]);
			for (int q0 = 0; q0 < qcap; q0 += 4) {
				// in the box: !outside, as its comparisons (not less than)
				__m256d x4 = _mm256_loadu_pd(qx + q0), y4 = _mm256_loadu_pd(qy + q0), z4 = _mm256_loadu_pd(qz + q0);
				__m256d in = _mm256_and_pd(_mm256_cmp_pd(x4, blo0, _CMP_NLT_UQ), _mm256_cmp_pd(bhi0, x4, _CMP_NLT_UQ));
				in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(y4, blo1, _CMP_NLT_UQ), _mm256_cmp_pd(bhi1, y4, _CMP_NLT_UQ)));
				in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(z4, blo2, _CMP_NLT_UQ), _mm256_cmp_pd(bhi2, z4, _CMP_NLT_UQ)));
				unsigned inside = (unsigned)_mm256_movemask_pd(in);
				if (na - q0 < 4) {
					inside &= (1u << (na - q0)) - 1;
				}
				while (inside) {
					int q = q0 + __builtin_ctz(inside);
					inside &= inside - 1;
					__m256d ax = _mm256_set1_pd(qx[q]), ay = _mm256_set1_pd(qy[q]), az = _mm256_set1_pd(qz[q]);
					for (int b = b0; b < b1; b += 4) {
						__m256d dx = _mm256_sub_pd(ax, _mm256_loadu_pd(p->x + b));
						__m256d dy = _mm256_sub_pd(ay, _mm256_loadu_pd(p->y + b));
						__m256d dz = _mm256_sub_pd(az, _mm256_loadu_pd(p->z + b));
						__m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
						unsigned le = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(d2, c2, _CMP_LE_OQ));
						if (b1 - b < 4) {
							le &= (1u << (b1 - b)) - 1;
						}
						if (le) {
							p->fa[nf] = q;
							p->frb[nf] = rb;
							nf++;
							goto next_rb;
						}
					}
				}
			}
		next_rb:;
		}
	}
	return nf;
}

// pair_near lists the rotamers of j near i's grown box into near, and
// with avx2 their grown boxes by coordinate into nbox (padded with boxes
// that miss everything); it returns their number.
static int pair_near(const pair_args *p, int avx2) {
	int nn = 0;
	for (int rb = p->j0; rb < p->j1; rb++) {
		if (p->rat[rb] != p->rat[rb + 1] && !disjoint(p->rbox + 6 * (long)rb, p->pgi)) {
			p->near[nn++] = rb;
		}
	}
	if (nn > 0 && avx2) {
		int cap = (nn + 3) & ~3;
		for (int k = 0; k < cap; k++) {
			for (int d = 0; d < 6; d++) {
				p->nbox[d * cap + k] = k < nn ? p->rgrown[6 * (long)p->near[k] + d] : (d < 3 ? __builtin_inf() : -__builtin_inf());
			}
		}
	}
	return nn;
}

// pair_rotamer adds rotamer ra's terms to the numerator c of the pair of
// positions in p (the rotamers near, nn of them, from pair_near) and
// returns it, with the collision masses.
static double pair_rotamer(const pair_args *p, int avx2, int ra, int nn, double c) {
	if (p->rat[ra] == p->rat[ra + 1] || disjoint(p->rbox + 6 * (long)ra, p->pgj)) {
		return c;
	}
	int na = 0;
	for (int a = p->rat[ra]; a < p->rat[ra + 1]; a++) {
		if (!outside(p->x[a], p->y[a], p->z[a], p->pgj)) {
			p->ai[na++] = a;
		}
	}
	if (na == 0) {
		return c;
	}
	int nf = avx2 ? firsts_avx2(p, ra, na, nn) : firsts_any(p, ra, na, nn);
	// by atom, stably (insertion sort; few, nearly sorted)
	for (int s = 1; s < nf; s++) {
		int fa = p->fa[s], frb = p->frb[s], q = s;
		while (q > 0 && p->fa[q - 1] > fa) {
			p->fa[q] = p->fa[q - 1];
			p->frb[q] = p->frb[q - 1];
			q--;
		}
		p->fa[q] = fa;
		p->frb[q] = frb;
	}
	double wa = p->w[ra];
	for (int s = 0; s < nf; s++) {
		int rb = p->frb[s];
		c = c + wa * p->w[rb];
		p->cp[ra] += p->w[rb];
		p->cp[rb] += wa;
	}
	return c;
}

// pair_state is where cf_pairs stopped: pair k (of position t), its
// rotamer ra next (-1: the pair not begun), its nn near rotamers and its
// numerator c so far.
typedef struct {
	int32_t t, k, ra, nn;
	double c;
} pair_state;

static int cf_have_avx2_bmi(void) {
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi");
}

// cf_pairs computes, from where st stopped, the numerator num[k] of
// positions is[t] < js[k] for each k in [off[t], off[t+1]), in that order
// (the collision masses add up in it), and returns when they are all done
// (st->t == nis) or after about budget near-rotamer tests, st saying where
// it stopped: the same additions in the same order however it is cut.
static void cf_pairs(int avx2, pair_state *st, long budget, const int32_t *is, const int32_t *off, int32_t nis, const int32_t *js, const int32_t *posRot,
		const double *rbox, const double *rgrown, const double *pgrown, const int32_t *rat,
		const double *x, const double *y, const double *z, const double *w, double *cp, double c2,
		int32_t *near, int32_t *fa, int32_t *frb, int32_t *ai, double *nbox, double *num) {
	while (st->t < nis) {
		if (st->k >= off[st->t + 1]) {
			st->t++;
			continue;
		}
		int32_t i = is[st->t], j = js[st->k];
		pair_args p = {posRot[i], posRot[i + 1], posRot[j], posRot[j + 1], rbox, rgrown, pgrown + 6 * (long)i, pgrown + 6 * (long)j,
			rat, x, y, z, w, cp, c2, near, fa, frb, ai, nbox};
		if (st->ra < 0) {
			if (budget <= 0) {
				return;
			}
			st->nn = pair_near(&p, avx2);
			budget -= p.j1 - p.j0;
			st->ra = p.i0;
			st->c = 0.0;
			if (st->nn == 0) {
				st->ra = p.i1;
			}
		}
		for (; st->ra < p.i1; st->ra++) {
			if (budget <= 0) {
				return;
			}
			st->c = pair_rotamer(&p, avx2, st->ra, st->nn, st->c);
			budget -= 1 + st->nn / 4;
		}
		num[st->k] = st->c;
		st->k++;
		st->ra = -1;
	}
}

#endif // FOLDCORPUS_CONFIND_PAIR_H
