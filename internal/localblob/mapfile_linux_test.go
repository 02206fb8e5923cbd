package localblob

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
)

// TestReadMappedTruncated: a file truncated while mapped makes fn's reads
// fault (SIGBUS); ReadMapped returns an error wrapping ErrFileChanged that
// names the file instead of crashing, and the goroutine's fault mode is
// left as it was.
func TestReadMappedTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shrinks.cif")
	if err := os.WriteFile(path, bytes.Repeat([]byte("ATOM 1 C CA . MET A 1 1 ? 1.0 2.0 3.0\n"), 3*MinMapSize/40), 0o644); err != nil {
		t.Fatal(err)
	}
	var sum int
	_, err := ReadMapped(path, nil, func(data []byte) error {
		if err := os.Truncate(path, 100); err != nil {
			t.Fatal(err)
		}
		for _, c := range data { // the pages past the first fault
			sum += int(c)
		}
		return nil
	})
	if !errors.Is(err, ErrFileChanged) || !strings.Contains(err.Error(), path) {
		t.Fatalf("truncated while mapped: err %v; want ErrFileChanged naming %s", err, path)
	}
	if debug.SetPanicOnFault(false) {
		t.Error("ReadMapped left the goroutine panicking on faults")
	}
	// A fault outside the file's mapping is a bug in fn, not a changed
	// file: it panics as without ReadMapped. Here fn reads a page mapped
	// with no access.
	noAccess, err := syscall.Mmap(-1, 0, os.Getpagesize(), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(noAccess)
	if err := os.WriteFile(path, make([]byte, MinMapSize), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("a fault outside the mapping was swallowed")
		} else {
			t.Logf("fault outside the mapping: %v", r)
		}
	}()
	_, err = ReadMapped(path, nil, func(data []byte) error {
		sum += int(noAccess[len(data)%8])
		return nil
	})
	t.Errorf("ReadMapped returned (%v) after a fault outside the mapping", err)
}
