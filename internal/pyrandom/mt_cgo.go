//go:build cgo

package pyrandom

/*
#cgo CFLAGS: -O2 -Wno-psabi
#include "mt.h"
*/
import "C"

// generate computes the next MT19937 block and its tempered outputs (as
// generateGo does, eight words at a time in C).
func (r *Rand) generate() {
	C.mt_block((*C.uint32_t)(&r.mt[0]), (*C.uint32_t)(&r.out[0]), useAVX2)
	r.mti = 0
}
