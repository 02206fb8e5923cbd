package pdbheader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"

	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// gzipState is a reusable gzip reader and inflate buffer.
type gzipState struct {
	zr  *gzip.Reader
	buf []byte
}

// gunzip inflates gzip input (klauspost/compress, about twice the standard
// library's speed here) into s's buffer, grown from the trailer's ISIZE,
// at most mmcif.MaxDecompressed bytes; the result is valid until the next
// call. Input that is not gzip is returned as is.
func (s *gzipState) gunzip(data []byte) ([]byte, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, nil
	}
	var err error
	if s.zr == nil {
		s.zr, err = gzip.NewReader(bytes.NewReader(data))
	} else {
		err = s.zr.Reset(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	b := bytes.NewBuffer(s.buf[:0])
	if len(data) >= 18 {
		// ISIZE is the size mod 2^32 of the last member; a hint only
		b.Grow(int(min(binary.LittleEndian.Uint32(data[len(data)-4:]), 1<<30)) + 1)
	}
	n, err := io.Copy(b, io.LimitReader(s.zr, mmcif.MaxDecompressed+1))
	s.buf = b.Bytes()
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if n > mmcif.MaxDecompressed {
		return nil, fmt.Errorf("gzip: decompressed size exceeds %d bytes", int64(mmcif.MaxDecompressed))
	}
	return s.buf, nil
}
