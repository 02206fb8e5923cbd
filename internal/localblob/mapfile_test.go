package localblob

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadMapped: fn sees the file's exact bytes whether it is mapped
// (large) or read (small, empty); errors are ReadFileInto's; fn's error
// comes back as it is.
func TestReadMapped(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		size int
	}{
		{"empty", 0},
		{"small", 1000},
		{"just below", MinMapSize - 1},
		{"mapped", MinMapSize},
		{"mapped, not page-aligned", 3*MinMapSize + 17},
	}
	var buf []byte
	for _, tt := range tests {
		want := make([]byte, tt.size)
		for i := range want {
			want[i] = byte(i * 7)
		}
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		calls := 0
		var err error
		buf, err = ReadMapped(path, buf, func(data []byte) error {
			calls++
			if !bytes.Equal(data, want) {
				t.Errorf("%s: fn got %d bytes, want the file's %d", tt.name, len(data), len(want))
			}
			return nil
		})
		if err != nil || calls != 1 {
			t.Errorf("%s: err %v, fn called %d times; want nil, 1", tt.name, err, calls)
		}
		sentinel := errors.New("fn failed")
		if _, err := ReadMapped(path, buf, func([]byte) error { return sentinel }); err != sentinel {
			t.Errorf("%s: fn's error came back as %v", tt.name, err)
		}
	}
	called := false
	fn := func([]byte) error { called = true; return nil }
	if _, err := ReadMapped(filepath.Join(dir, "missing"), nil, fn); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v, want ErrNotExist naming it", err)
	}
	if _, err := ReadMapped(dir, nil, fn); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v, want os.ReadFile's error", err)
	}
	if called {
		t.Error("fn called for a file that could not be read")
	}
}
