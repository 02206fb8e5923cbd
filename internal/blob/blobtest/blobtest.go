// Package blobtest is the conformance suite of blob.Store: one set of tests
// of the seam's contract (whole reads to EOF, ErrNotFound, range reads,
// create-only writes and ErrExists, listing, generations) that every
// implementation runs from its own tests, in the manner of go-cloud's
// drivertest and litestream's replica-client tests:
//
//	func TestConformance(t *testing.T) {
//		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness { ... })
//	}
//
// Implementation-specific behaviour (atomic temporary files, gzip
// transcoding, request shapes, quotas) stays in the implementation's own
// tests.
package blobtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

// Harness is one fresh store holding the objects the suite asked for.
type Harness struct {
	// Store is the implementation under test.
	Store blob.Store
	// URI returns the store's URI of the object name (a slash-separated
	// relative name such as "dir/a.bin"), existing or not.
	URI func(name string) string
	// ReadOnly stores refuse Create with a permanent error.
	ReadOnly bool
	// Overwrite, when not nil, replaces the object name behind the store's
	// back (as another writer would): the generation tests need it, and
	// run only when the store is a blob.GenerationOpener with real
	// generations (Generations).
	Overwrite func(t *testing.T, name string, data []byte)
	// Generations says the store's objects have generations (Open reports
	// one, OpenGeneration reads it). Without it the suite checks that a
	// pinned read fails with a permanent error instead.
	Generations bool
	// Foreign is a URI the store must refuse with a permanent error (a
	// scheme it does not serve); empty skips that check.
	Foreign string
}

// NewHarness returns a fresh Harness whose store holds exactly objects
// (name -> bytes), each written behind the store's back (files, fake
// server objects, a fake Hub commit). Each test of the suite calls it once.
type NewHarness func(t *testing.T, objects map[string][]byte) Harness

// Run runs the whole suite over the implementation newHarness builds.
func Run(t *testing.T, newHarness NewHarness) {
	t.Run("ReadAll", func(t *testing.T) { testReadAll(t, newHarness) })
	t.Run("NotFound", func(t *testing.T) { testNotFound(t, newHarness) })
	t.Run("RangeReads", func(t *testing.T) { testRangeReads(t, newHarness) })
	t.Run("Create", func(t *testing.T) { testCreate(t, newHarness) })
	t.Run("CreateRace", func(t *testing.T) { testCreateRace(t, newHarness) })
	t.Run("List", func(t *testing.T) { testList(t, newHarness) })
	t.Run("Generations", func(t *testing.T) { testGenerations(t, newHarness) })
	t.Run("Refusals", func(t *testing.T) { testRefusals(t, newHarness) })
}

// payload is n deterministic bytes that differ from one seed to another.
func payload(seed byte, n int) []byte {
	b := make([]byte, n)
	x := uint32(seed) + 1
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// testReadAll: ReadAll returns every byte of the object, read to EOF (an
// object larger than any single read, and an empty one), and can be called
// concurrently.
func testReadAll(t *testing.T, newHarness NewHarness) {
	objects := map[string][]byte{
		"small.txt":       []byte("data_x\n"),
		"dir/big.bin":     payload(1, 3<<20+17),
		"dir/sub/odd.cif": payload(2, 65537),
		"empty":           {},
	}
	h := newHarness(t, objects)
	ctx := context.Background()
	var wg sync.WaitGroup
	for name, want := range objects {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := h.Store.ReadAll(ctx, h.URI(name))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("ReadAll(%s) = %d bytes, %v; want all %d bytes", h.URI(name), len(got), err, len(want))
				}
			}()
		}
	}
	wg.Wait()
}

// testNotFound: a missing object is ErrNotFound for ReadAll and Open, and
// List of a missing name is empty, not an error.
func testNotFound(t *testing.T, newHarness NewHarness) {
	h := newHarness(t, map[string][]byte{"there.txt": []byte("x")})
	ctx := context.Background()
	for _, name := range []string{"missing.txt", "nodir/missing.txt"} {
		uri := h.URI(name)
		if got, err := h.Store.ReadAll(ctx, uri); !errors.Is(err, derrors.ErrNotFound) {
			t.Errorf("ReadAll(%s) = %q, %v; want an error wrapping ErrNotFound", uri, got, err)
		}
		if o, err := h.Store.Open(ctx, uri); !errors.Is(err, derrors.ErrNotFound) {
			if o != nil {
				o.Close()
			}
			t.Errorf("Open(%s) = %v; want an error wrapping ErrNotFound", uri, err)
		}
	}
	if got, err := h.Store.List(ctx, h.URI("missing*")); err != nil || len(got) != 0 {
		t.Errorf("List(%s) = %q, %v; want nothing, no error", h.URI("missing*"), got, err)
	}
}

// testRangeReads: Open reports the size; ReadAt reads exact ranges, short
// at the end with io.EOF, nothing past it; BytesRead counts what was read;
// concurrent ReadAt calls are safe (io.ReaderAt).
func testRangeReads(t *testing.T, newHarness NewHarness) {
	content := payload(3, 100000)
	h := newHarness(t, map[string][]byte{"m.parquet": content})
	o, err := h.Store.Open(context.Background(), h.URI("m.parquet"))
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	defer o.Close()
	size := int64(len(content))
	if o.Size() != size {
		t.Fatalf("Size() = %d, want %d", o.Size(), size)
	}
	cases := []struct {
		off, n  int64
		wantN   int
		wantEOF bool
	}{
		{size - 8, 8, 8, false}, // a parquet footer's tail
		{0, 4, 4, false},
		{4321, 1000, 1000, false},
		{size - 10, 20, 10, true},
		{size, 4, 0, true},
	}
	var total int64
	for _, c := range cases {
		buf := make([]byte, c.n)
		n, err := o.ReadAt(buf, c.off)
		if n != c.wantN || (err != nil) != c.wantEOF || (err != nil && !errors.Is(err, io.EOF)) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; want %d, EOF %v", c.n, c.off, n, err, c.wantN, c.wantEOF)
		}
		if !bytes.Equal(buf[:n], content[c.off:c.off+int64(n)]) {
			t.Errorf("ReadAt(%d bytes at %d): wrong bytes", c.n, c.off)
		}
		total += int64(n)
	}
	if o.BytesRead() != total {
		t.Errorf("BytesRead() = %d, want %d (the bytes ReadAt returned)", o.BytesRead(), total)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			off := int64(i) * 9000
			buf := make([]byte, 5000)
			if n, err := o.ReadAt(buf, off); err != nil || n != len(buf) || !bytes.Equal(buf, content[off:off+5000]) {
				t.Errorf("concurrent ReadAt(5000 at %d) = %d, %v", off, n, err)
			}
		}()
	}
	wg.Wait()
}

// testCreate: Create writes a new object (creating its folders), readable
// in full at once; a second Create of the name with other bytes is
// ErrExists and leaves the object as it was; with the same bytes (a retry
// whose first attempt landed) it is nil or ErrExists, never a change.
func testCreate(t *testing.T, newHarness NewHarness) {
	h := newHarness(t, map[string][]byte{"old.bin": []byte("old")})
	ctx := context.Background()
	uri := h.URI("out/p-00000-of-00001.parquet")
	v1 := payload(4, 70000)
	if h.ReadOnly {
		if err := h.Store.Create(ctx, uri, v1); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("Create on a read-only store = %v, want a permanent error", err)
		}
		if err := h.Store.Create(ctx, h.URI("old.bin"), v1); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("Create over an object on a read-only store = %v, want a permanent error", err)
		}
		if got, err := h.Store.ReadAll(ctx, h.URI("old.bin")); err != nil || string(got) != "old" {
			t.Errorf("after a refused Create the object is %q, %v; want it unchanged", got, err)
		}
		return
	}
	if err := h.Store.Create(ctx, uri, v1); err != nil {
		t.Fatalf("Create(%s) = %v", uri, err)
	}
	check := func(step string, uri string, want []byte) {
		t.Helper()
		if got, err := h.Store.ReadAll(ctx, uri); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: ReadAll(%s) = %d bytes, %v; want the %d bytes written", step, uri, len(got), err, len(want))
		}
	}
	check("after Create", uri, v1)
	if err := h.Store.Create(ctx, uri, []byte("other bytes")); !errors.Is(err, derrors.ErrExists) {
		t.Errorf("Create over an existing object with other bytes = %v, want an error wrapping ErrExists", err)
	}
	check("after a refused Create", uri, v1)
	if err := h.Store.Create(ctx, uri, v1); err != nil && !errors.Is(err, derrors.ErrExists) {
		t.Errorf("Create again with the same bytes = %v, want nil or ErrExists", err)
	}
	check("after a repeated Create", uri, v1)
	if err := h.Store.Create(ctx, h.URI("old.bin"), []byte("new")); !errors.Is(err, derrors.ErrExists) {
		t.Errorf("Create over an object written by another = %v, want ErrExists", err)
	}
	check("the other object", h.URI("old.bin"), []byte("old"))
	empty := h.URI("out/empty")
	if err := h.Store.Create(ctx, empty, nil); err != nil {
		t.Errorf("Create of an empty object = %v", err)
	}
	check("the empty object", empty, []byte{})
}

// testCreateRace: of concurrent creators of one name with different
// bytes, exactly one wins; the others get ErrExists; the object holds the
// winner's bytes.
func testCreateRace(t *testing.T, newHarness NewHarness) {
	h := newHarness(t, nil)
	if h.ReadOnly {
		t.Skip("read-only store")
	}
	ctx := context.Background()
	uri := h.URI("race/x.bin")
	const n = 6
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.Store.Create(ctx, uri, payload(byte(10+i), 1000+i))
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("creators %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, derrors.ErrExists):
			t.Errorf("losing Create = %v, want ErrExists", err)
		}
	}
	if winner < 0 {
		t.Fatal("no creator won")
	}
	if got, err := h.Store.ReadAll(ctx, uri); err != nil || !bytes.Equal(got, payload(byte(10+winner), 1000+winner)) {
		t.Errorf("ReadAll = %d bytes, %v; want the winner's %d bytes", len(got), err, 1000+winner)
	}
}

// testList: a glob in the last element lists the matching objects of that
// folder only, sorted; a name without glob characters lists that object;
// the URIs returned read the objects.
func testList(t *testing.T, newHarness NewHarness) {
	objects := map[string][]byte{
		"m/part-2.parquet":     []byte("p2"),
		"m/part-1.parquet":     []byte("p1"),
		"m/part-10.parquet":    []byte("p10"),
		"m/part-1.txt":         []byte("t1"),
		"m/sub/part-3.parquet": []byte("p3"),
		"n/part-4.parquet":     []byte("p4"),
	}
	h := newHarness(t, objects)
	ctx := context.Background()
	for _, c := range []struct {
		pattern string
		want    []string // object names, sorted
	}{
		{"m/*.parquet", []string{"m/part-1.parquet", "m/part-10.parquet", "m/part-2.parquet"}},
		{"m/part-1.*", []string{"m/part-1.parquet", "m/part-1.txt"}},
		{"m/part-?.parquet", []string{"m/part-1.parquet", "m/part-2.parquet"}},
		{"m/part-2.parquet", []string{"m/part-2.parquet"}},
		{"z/*", nil},
	} {
		got, err := h.Store.List(ctx, h.URI(c.pattern))
		if err != nil {
			t.Errorf("List(%s) = %v", h.URI(c.pattern), err)
			continue
		}
		if len(got) != len(c.want) || !slices.IsSorted(got) {
			t.Errorf("List(%s) = %q; want %d URIs (%q), sorted", h.URI(c.pattern), got, len(c.want), c.want)
			continue
		}
		for i, uri := range got {
			if data, err := h.Store.ReadAll(ctx, uri); err != nil || !bytes.Equal(data, objects[c.want[i]]) {
				t.Errorf("List(%s)[%d] = %s, which reads %q, %v; want the object %s", h.URI(c.pattern), i, uri, data, err, c.want[i])
			}
		}
	}
}

// testGenerations: in a store with generations, Open reports the one it
// pinned, OpenGeneration reads it, and once the object is overwritten the
// old generation is ErrNotFound, which blob.Pin turns into a permanent
// error. In a store without them, Open reports 0 and a pinned read fails
// with a permanent error (a run pinned to a generation is never read from
// a store that cannot honour it).
func testGenerations(t *testing.T, newHarness NewHarness) {
	h := newHarness(t, map[string][]byte{"m.parquet": []byte("first")})
	ctx := context.Background()
	uri := h.URI("m.parquet")
	o, err := h.Store.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	gen1 := blob.ObjectGeneration(o)
	o.Close()
	g, isOpener := h.Store.(blob.GenerationOpener)
	if !h.Generations {
		if gen1 != 0 {
			t.Errorf("Open reported generation %d; the harness says the store has none", gen1)
		}
		if _, err := blob.Pin(h.Store, uri, 7).ReadAll(ctx, uri); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("pinned ReadAll on a store without generations = %v, want a permanent error", err)
		}
		if isOpener {
			if _, err := g.OpenGeneration(ctx, uri, 7); !errors.Is(err, derrors.ErrPermanent) {
				t.Errorf("OpenGeneration on a store without generations = %v, want a permanent error", err)
			}
		}
		return
	}
	if !isOpener || h.Overwrite == nil {
		t.Fatalf("the harness says the store has generations, but it is no blob.GenerationOpener (%v) or has no Overwrite", isOpener)
	}
	if gen1 <= 0 {
		t.Fatalf("Open reported generation %d, want > 0", gen1)
	}
	read := func(o blob.Object) string {
		t.Helper()
		defer o.Close()
		b := make([]byte, o.Size())
		if n, err := o.ReadAt(b, 0); err != nil && !(errors.Is(err, io.EOF) && n == len(b)) {
			t.Fatal(err)
		}
		return string(b)
	}
	o1, err := g.OpenGeneration(ctx, uri, gen1)
	if err != nil || blob.ObjectGeneration(o1) != gen1 || read(o1) != "first" {
		t.Fatalf("OpenGeneration(%d) = %v; want the first object at its generation", gen1, err)
	}
	h.Overwrite(t, "m.parquet", []byte("second!"))
	o2, err := h.Store.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	gen2 := blob.ObjectGeneration(o2)
	if got := read(o2); gen2 == gen1 || got != "second!" {
		t.Fatalf("after the overwrite: generation %d (was %d), content %q", gen2, gen1, got)
	}
	if _, err := g.OpenGeneration(ctx, uri, gen1); !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("OpenGeneration of the overwritten generation = %v, want ErrNotFound", err)
	}
	if _, err := g.OpenGeneration(ctx, uri, 0); !errors.Is(err, derrors.ErrPermanent) {
		t.Errorf("OpenGeneration(0) = %v, want a permanent error", err)
	}
	if got, err := blob.Pin(h.Store, uri, gen2).ReadAll(ctx, uri); err != nil || string(got) != "second!" {
		t.Errorf("pinned ReadAll at the live generation = %q, %v", got, err)
	}
	if _, err := blob.Pin(h.Store, uri, gen1).ReadAll(ctx, uri); !errors.Is(err, derrors.ErrPermanent) || !errors.Is(err, derrors.ErrNotFound) {
		t.Errorf("pinned ReadAll at the overwritten generation = %v, want a permanent not-found error", err)
	}
}

// testRefusals: a cancelled context fails every call; a URI of a scheme
// the store does not serve is a permanent error, for reads and writes.
func testRefusals(t *testing.T, newHarness NewHarness) {
	h := newHarness(t, map[string][]byte{"x.txt": []byte("x")})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Store.ReadAll(ctx, h.URI("x.txt")); err == nil {
		t.Errorf("ReadAll with a cancelled context = nil error")
	}
	if !h.ReadOnly {
		if err := h.Store.Create(ctx, h.URI("y.txt"), []byte("y")); err == nil {
			t.Errorf("Create with a cancelled context = nil error")
		}
	}
	if h.Foreign == "" {
		return
	}
	bg := context.Background()
	calls := map[string]func() error{
		"ReadAll": func() error { _, err := h.Store.ReadAll(bg, h.Foreign); return err },
		"Open": func() error {
			o, err := h.Store.Open(bg, h.Foreign)
			if o != nil {
				o.Close()
			}
			return err
		},
		"Create": func() error { return h.Store.Create(bg, h.Foreign, []byte("z")) },
		"List":   func() error { _, err := h.Store.List(bg, h.Foreign); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("%s(%s) = %v, want a permanent error", name, h.Foreign, err)
		}
	}
}

// Objects writes objects with put, for harnesses that create them one by
// one; it fails the test on the first error.
func Objects(t *testing.T, objects map[string][]byte, put func(name string, data []byte) error) {
	t.Helper()
	for name, data := range objects {
		if err := put(name, data); err != nil {
			t.Fatal(fmt.Errorf("blobtest: writing fixture %s: %w", name, err))
		}
	}
}
