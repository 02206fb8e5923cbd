// libm.h: the C of libm_cgo.go, included by its cgo preamble only (its static
// functions are compiled in that one translation unit, with the
// package's #cgo CFLAGS, as when they were written in the preamble).
#ifndef FOLDCORPUS_CONFIND_LIBM_H
#define FOLDCORPUS_CONFIND_LIBM_H

#include <math.h>

static double cf_atan2(double y, double x) { return atan2(y, x); }

#endif // FOLDCORPUS_CONFIND_LIBM_H
