package corpus

import (
	"bytes"
	"testing"
	"unsafe"
)

func TestRecycler(t *testing.T) {
	r := newRecycler()
	a := r.Allocate(100 << 10)
	if len(a) != 100<<10 || uintptr(unsafe.Pointer(unsafe.SliceData(a)))%64 != 0 {
		t.Fatalf("Allocate(100 KiB): len %d, address %p", len(a), unsafe.SliceData(a))
	}
	for i := range a {
		a[i] = 7
	}
	r.Free(a)
	r.Free(a) // a second Free must not make two owners
	b := r.Allocate(101 << 10)
	if unsafe.SliceData(b) != unsafe.SliceData(a) {
		t.Fatal("a freed buffer of the same size class was not reused")
	}
	if bytes.IndexByte(b[:cap(b)], 7) >= 0 {
		t.Fatal("a reused buffer was not zeroed")
	}
	if c := r.Allocate(101 << 10); unsafe.SliceData(c) == unsafe.SliceData(b) {
		t.Fatal("a buffer freed twice was handed out twice")
	}
	foreign := make([]byte, sizeClass(100<<10))
	r.Free(foreign)
	if d := r.Allocate(100 << 10); unsafe.SliceData(d) == unsafe.SliceData(foreign) {
		t.Fatal("a buffer the recycler did not make was taken in")
	}
	small := r.Allocate(1000)
	r.Free(small)
	if e := r.Allocate(1000); unsafe.SliceData(e) == unsafe.SliceData(small) {
		t.Fatal("a small buffer was recycled")
	}
	// grown within its capacity, a buffer keeps its contents
	g := r.Allocate(70 << 10)
	g[0] = 1
	if g2 := r.Reallocate(cap(g), g); g2[0] != 1 || len(g2) != cap(g) {
		t.Fatal("Reallocate within the capacity lost the contents")
	}
	if g3 := r.Reallocate(4<<20, g); g3[0] != 1 || len(g3) != 4<<20 {
		t.Fatal("Reallocate to a larger class lost the contents")
	}
	for _, n := range []int{1, 15, 16, 17, 64 << 10, 100 << 10, 9 << 20} {
		c := sizeClass(n)
		if c < n || c > n+n/8+1 || sizeClass(c) != c {
			t.Errorf("sizeClass(%d) = %d", n, c)
		}
	}
}
