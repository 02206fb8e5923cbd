package corpus

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// recycler is the memory.Allocator of one Writer: the arrow builders'
// buffers and the parquet encoder's. It keeps the large buffers freed
// (a row group's columns, released once encoded) for the next row group
// instead of leaving them to the garbage collector. Fresh multi-megabyte
// buffers for every row group cost a run more than its parquet encoding
// did: zeroing, a page fault per 4 KiB touched, and collections (issue 17:
// page faults were a tenth of a run's CPU, almost all of them the
// writer's).
//
// Buffers under minRecycled bytes come from the Go allocator. Recycled ones
// are zeroed before they are handed out again, as the Go allocator's are.
// Safe for concurrent use (the Writer's encoder goroutine frees what the
// appending goroutine allocates).
type recycler struct {
	mu   sync.Mutex
	free map[int][][]byte // by capacity (sizeClass)
	// out are the recycled-size buffers handed out and not yet freed: only
	// those are taken back, once, so a buffer freed twice or one this
	// allocator did not make can never have two owners.
	out map[*byte]struct{}
	// poison, in tests, overwrites each freed buffer, so that a read
	// after Free shows in the output instead of passing unnoticed.
	poison bool
	// reused counts the buffers handed out again.
	reused int
}

// minRecycled is the smallest size recycled: smaller buffers are cheap to
// allocate (they come from the Go allocator's size-class caches).
const minRecycled = 64 << 10

// maxFreePerClass bounds the buffers kept per capacity.
const maxFreePerClass = 8

func newRecycler() *recycler {
	return &recycler{free: make(map[int][][]byte), out: make(map[*byte]struct{})}
}

// sizeClass rounds n up to a capacity with at most 4 significant bits:
// at most 1/8 more than asked, and few distinct capacities to reuse.
func sizeClass(n int) int {
	shift := bits.Len(uint(n-1)) - 4
	if shift <= 0 {
		return n
	}
	return ((n-1)>>shift + 1) << shift
}

// Allocate returns a zeroed, 64-byte aligned buffer of size bytes.
func (r *recycler) Allocate(size int) []byte {
	if size < minRecycled {
		return memory.DefaultAllocator.Allocate(size)
	}
	c := sizeClass(size)
	r.mu.Lock()
	// the smallest free buffer that holds size bytes, if it is at most
	// twice as large: row groups ask for sizes that differ a little
	fit := 0
	for fc, list := range r.free {
		if len(list) > 0 && fc >= size && fc <= 2*size && (fit == 0 || fc < fit) {
			fit = fc
		}
	}
	if fit > 0 {
		list := r.free[fit]
		b := list[len(list)-1]
		r.free[fit] = list[:len(list)-1]
		r.out[unsafe.SliceData(b)] = struct{}{}
		r.reused++
		r.mu.Unlock()
		clear(b)
		return b[:size]
	}
	r.mu.Unlock()
	b := make([]byte, c)
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 != 0 {
		// Large objects start on a page; should that ever change, fall
		// back to the Go allocator's padded buffers (not recycled).
		return memory.DefaultAllocator.Allocate(size)
	}
	r.mu.Lock()
	r.out[unsafe.SliceData(b)] = struct{}{}
	r.mu.Unlock()
	return b[:size]
}

// Reallocate returns a buffer of size bytes starting with b's contents.
func (r *recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}

// Free takes back a buffer from Allocate; it keeps those it recycles.
func (r *recycler) Free(b []byte) {
	c := cap(b)
	if c < minRecycled {
		return
	}
	p := unsafe.SliceData(b)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.out[p]; !ok {
		return
	}
	delete(r.out, p)
	b = b[:c]
	if r.poison {
		for i := range b {
			b[i] = 0xA5
		}
	}
	if list := r.free[c]; len(list) < maxFreePerClass {
		r.free[c] = append(list, b)
	}
}

var _ memory.Allocator = (*recycler)(nil)
