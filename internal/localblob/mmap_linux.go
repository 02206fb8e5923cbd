package localblob

import (
	"os"
	"syscall"
)

// mmap maps size bytes of f read-only and private, populating the page
// tables up front (MAP_POPULATE) so that reading does not fault page by
// page.
func mmap(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
}

func munmap(data []byte) error { return syscall.Munmap(data) }
