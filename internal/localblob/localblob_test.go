package localblob

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
)

func TestCreateOnlyAtomic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var s Store
	p := filepath.Join(dir, "a", "x.bin")
	// Racing creators: exactly one wins, the others get ErrExists.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Create(ctx, "file://"+p, []byte{byte(i)})
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, derrors.ErrExists):
			t.Errorf("Create = %v, want nil or ErrExists", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d creators won, want 1", wins)
	}
	got, err := s.ReadAll(ctx, p)
	if err != nil || len(got) != 1 {
		t.Errorf("ReadAll = %v, %v", got, err)
	}
	if temps, _ := filepath.Glob(filepath.Join(dir, "a", TempPrefix+"*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

func TestErrorsAndRanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var s Store
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A stale temporary file from a killed writer is not listed and is removed.
	if err := os.WriteFile(filepath.Join(dir, TempPrefix+"f.txt-1"), []byte("part"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		uri  string
		want error
	}{
		{filepath.Join(dir, "missing"), derrors.ErrNotFound},
		{"gs://bucket/x", derrors.ErrPermanent},
		{"file://otherhost/x", derrors.ErrPermanent},
	} {
		if _, err := s.ReadAll(ctx, tc.uri); !errors.Is(err, tc.want) {
			t.Errorf("ReadAll(%s) = %v, want %v", tc.uri, err, tc.want)
		}
	}
	o, err := s.Open(ctx, "file://"+p)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	buf := make([]byte, 3)
	if _, err := o.ReadAt(buf, 7); err != nil || string(buf) != "789" || o.Size() != 10 || o.BytesRead() != 3 {
		t.Errorf("ReadAt = %q, %v; size %d, bytes read %d", buf, err, o.Size(), o.BytesRead())
	}
	list, err := s.List(ctx, filepath.Join(dir, "*"))
	if err != nil || len(list) != 1 || list[0] != p {
		t.Errorf("List = %v, %v; want [%s]", list, err, p)
	}
	if n, err := RemoveTemps(dir); n != 1 || err != nil {
		t.Errorf("RemoveTemps = %d, %v; want 1", n, err)
	}
}
