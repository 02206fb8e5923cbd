package localblob

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile compares reading a file (page cache) into a reused
// buffer with mapping it, for a consumer that reads every byte once.
func BenchmarkReadFile(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20} {
		path := filepath.Join(b.TempDir(), "f")
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		var sink byte
		consume := func(d []byte) error {
			var x byte
			for i := 0; i < len(d); i += 8 {
				x ^= d[i]
			}
			sink ^= x
			return nil
		}
		b.Run(fmt.Sprintf("read/%dK", size>>10), func(b *testing.B) {
			var buf []byte
			for b.Loop() {
				var err error
				if buf, err = ReadFileInto(path, buf); err != nil {
					b.Fatal(err)
				}
				_ = consume(buf)
			}
		})
		b.Run(fmt.Sprintf("map/%dK", size>>10), func(b *testing.B) {
			for b.Loop() {
				f, _ := os.Open(path)
				d, err := mmap(f, size)
				if err != nil {
					b.Fatal(err)
				}
				_ = guardMapped(path, d, consume)
				_ = munmap(d)
				f.Close()
			}
		})
	}
}
