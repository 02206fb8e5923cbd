// draws.h: CPython's random() and gauss() draws from MT19937's raw outputs,
// for C kernels that take a Rand's outputs themselves (pyrandom.Rand.Window
// and Advance): the same operations as Rand.Random and the Gaussian
// pair's draws (coordfront.Normals), so the same bits.
// A copy in each package whose kernel includes it (ccoordv1, cropsv1): cgo
// tracks only a package's own headers. Keep the copies byte-identical
// (ccoordv1.TestDrawsHeaderCopies).
#ifndef PYRANDOM_DRAWS_H
#define PYRANDOM_DRAWS_H

#include <stdint.h>
#include <math.h>

// py_random is random() from the two outputs w[0], w[1].
static inline double py_random(const uint32_t *w) {
	uint32_t a = w[0] >> 5, b = w[1] >> 6;
	return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

// py_gauss_x and py_gauss_u are a gauss() pair's draws from its four
// outputs: x = random()*2pi, then u = 1.0 - random().
static inline double py_gauss_x(const uint32_t *w) { return py_random(w) * (2 * M_PI); }
static inline double py_gauss_u(const uint32_t *w) { return 1.0 - py_random(w + 2); }

#endif
