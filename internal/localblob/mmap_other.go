//go:build !linux

package localblob

import (
	"errors"
	"os"
)

// mmap is not used outside Linux: ReadMapped reads instead.
func mmap(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func munmap([]byte) error { return nil }
