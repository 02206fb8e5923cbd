package localblob

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/foldcorpus/foldcorpus/internal/blob"
)

// ErrFileChanged is returned (wrapped, naming the file) by ReadMapped when
// the mapped file lost bytes while fn read them: it was truncated (or its
// storage failed) under the mapping, so that a read of a mapped page raised
// SIGBUS. Reading the file again may succeed. It is blob.ErrFileChanged,
// so that callers of any store test for the one sentinel.
var ErrFileChanged = blob.ErrFileChanged

// MinMapSize is the size from which ReadMapped maps a file instead of
// reading it: below it, read(2) into a reused buffer is cheaper than
// setting up and tearing down a mapping.
const MinMapSize = 512 << 10

// ReadMapped calls fn with the whole content of the file at path, without
// copying it where it can: a regular file of at least MinMapSize bytes is
// mapped read-only (private, pages populated up front from the page
// cache) for the duration of fn and unmapped when fn returns; any other
// file (smaller, a pipe, a device) is read into buf as ReadFileInto reads
// it, and the buffer is returned (grown) for reuse. Errors opening or
// reading the file are ReadFileInto's (os.Open's, os.ReadFile's); fn's
// error is returned as it is.
//
// Contract for fn:
//   - data is valid only until fn returns: fn must not keep data or any
//     slice of it (copy what it keeps; strings made from it are copies);
//   - data is read-only: fn must not write to it;
//   - fn reads data on the calling goroutine only, never hands it to
//     another goroutine: if the file is truncated while mapped, a read of
//     a lost page raises SIGBUS, which ReadMapped turns into an error
//     wrapping ErrFileChanged (debug.SetPanicOnFault on this goroutine,
//     recovered here); fn's own state may then be half-updated, and the
//     caller must reset what fn was filling. A fault elsewhere (a bug in
//     fn, not the mapping) is not caught: it panics as it would without
//     ReadMapped;
//   - fn must not recover panics itself (or must re-panic those it does
//     not own): a recovered fault would pass for fn's own failure, and
//     while fn runs, this goroutine's faults panic instead of crashing.
func ReadMapped(path string, buf []byte, fn func(data []byte) error) (_ []byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < MinMapSize || int64(int(st.Size())) != st.Size() {
		if buf, err = readFull(f, buf); err != nil {
			return buf, err
		}
		return buf, fn(buf)
	}
	data, err := mmap(f, int(st.Size()))
	if err != nil {
		// Some file systems cannot map: read instead.
		if buf, err = readFull(f, buf); err != nil {
			return buf, err
		}
		return buf, fn(buf)
	}
	defer func() {
		if uerr := munmap(data); uerr != nil && err == nil {
			err = fmt.Errorf("munmap %s: %w", path, uerr)
		}
	}()
	return buf, guardMapped(path, data, fn)
}

// guardMapped calls fn(data) with a memory fault inside data's pages
// turned into an error wrapping ErrFileChanged.
func guardMapped(path string, data []byte, fn func([]byte) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if addr, ok := faultAddr(r); ok && inPages(addr, data) {
			err = fmt.Errorf("%s: %w (a read at byte %d of %d faulted)", path, ErrFileChanged,
				addr-uintptr(unsafe.Pointer(unsafe.SliceData(data))), len(data))
			return
		}
		panic(r)
	}()
	return fn(data)
}

// faultAddr is the faulting address of a memory-fault panic.
func faultAddr(r any) (uintptr, bool) {
	re, ok := r.(runtime.Error)
	if !ok {
		return 0, false
	}
	a, ok := re.(interface{ Addr() uintptr })
	if !ok {
		return 0, false
	}
	return a.Addr(), true
}

// inPages reports whether addr lies in the pages that map data.
func inPages(addr uintptr, data []byte) bool {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	page := uintptr(os.Getpagesize())
	end := (start + uintptr(len(data)) + page - 1) &^ (page - 1)
	return addr >= start && addr < end
}
