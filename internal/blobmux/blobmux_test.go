package blobmux

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// recorder is a blob.Store that records the URIs it was asked for.
type recorder struct {
	blob.Store
	got []string
}

func (r *recorder) ReadAll(_ context.Context, uri string) ([]byte, error) {
	r.got = append(r.got, uri)
	return []byte("gcs"), nil
}

// mux registers stores by scheme.
func mux(stores map[string]blob.Store) *Mux {
	m := New()
	for scheme, st := range stores {
		m.Register(scheme, st)
	}
	return m
}

func TestRoute(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	local := filepath.Join(dir, "a.txt")
	if err := (localblob.Store{}).Create(ctx, local, []byte("local")); err != nil {
		t.Fatal(err)
	}
	g := &recorder{}
	s := mux(map[string]blob.Store{"file": localblob.Store{}, "gs": g})
	tests := []struct{ uri, want string }{
		{local, "local"},
		{"file://" + local, "local"},
		{"gs://b/o", "gcs"},
	}
	for _, tt := range tests {
		got, err := s.ReadAll(ctx, tt.uri)
		if err != nil || string(got) != tt.want {
			t.Errorf("ReadAll(%s) = %q, %v; want %q", tt.uri, got, err, tt.want)
		}
	}
	if len(g.got) != 1 || g.got[0] != "gs://b/o" {
		t.Errorf("GCS store saw %v, want [gs://b/o]", g.got)
	}
	for _, u := range []string{"gs://b/o", "hf://datasets/o/n/f.parquet"} {
		if _, err := mux(map[string]blob.Store{"file": localblob.Store{}}).ReadAll(ctx, u); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("%s without its store: err = %v, want permanent", u, err)
		}
	}
	h := &recorder{}
	if _, err := mux(map[string]blob.Store{"file": localblob.Store{}, "gs": g, "hf": h}).ReadAll(ctx, "hf://datasets/o/n/f.parquet"); err != nil || len(h.got) != 1 {
		t.Errorf("hf:// went to %v (err %v), want the HF store", h.got, err)
	}
}

// TestReadMappedURI: local URIs are read in place (a small file into the
// caller's buffer, its memory reused), gs:// ones through the GCS store's
// ReadAll; fn sees each object's bytes.
func TestReadMappedURI(t *testing.T) {
	ctx := context.Background()
	local := filepath.Join(t.TempDir(), "a.txt")
	if err := (localblob.Store{}).Create(ctx, local, []byte("local")); err != nil {
		t.Fatal(err)
	}
	s := mux(map[string]blob.Store{"file": localblob.Store{}, "gs": &recorder{}})
	tests := []struct {
		uri, want string
		inPlace   bool
	}{
		{local, "local", true},
		{"file://" + local, "local", true},
		{"gs://b/o", "gcs", false},
	}
	for _, tt := range tests {
		if got := s.ReadsInPlace(tt.uri); got != tt.inPlace {
			t.Errorf("ReadsInPlace(%s) = %v, want %v", tt.uri, got, tt.inPlace)
		}
		buf := make([]byte, 0, 64)
		var got string
		var shared bool
		_, err := s.ReadMappedURI(ctx, tt.uri, buf, func(data []byte) error {
			got = string(data)
			shared = len(data) > 0 && &data[0] == &buf[:1][0]
			return nil
		})
		if err != nil || got != tt.want {
			t.Errorf("ReadMappedURI(%s) gave %q, %v; want %q", tt.uri, got, err, tt.want)
		}
		if shared != tt.inPlace {
			t.Errorf("ReadMappedURI(%s) read into the caller's buffer: %v, want %v", tt.uri, shared, tt.inPlace)
		}
	}
	if mux(map[string]blob.Store{"file": localblob.Store{}}).ReadsInPlace("gs://b/o") {
		t.Error("ReadsInPlace(gs://) without a GCS store = true")
	}
}

// TestOpener: an opener runs once, at the first URI of its scheme (never
// for the other schemes' calls), its store serves every later call, its
// failure is every call's error, and Close closes what it opened.
func TestOpener(t *testing.T) {
	ctx := context.Background()
	local := filepath.Join(t.TempDir(), "a.txt")
	if err := (localblob.Store{}).Create(ctx, local, []byte("local")); err != nil {
		t.Fatal(err)
	}
	m := New()
	m.Register("file", localblob.Store{})
	opened, closed := 0, 0
	g := &recorder{}
	m.RegisterOpener("gs", func(context.Context) (blob.Store, func() error, error) {
		opened++
		return g, func() error { closed++; return nil }, nil
	})
	m.RegisterOpener("hf", func(context.Context) (blob.Store, func() error, error) {
		return nil, nil, errors.New("no token")
	})
	if _, err := m.ReadAll(ctx, local); err != nil || opened != 0 {
		t.Fatalf("a local read: err %v, gs:// opener ran %d times; want nil, 0", err, opened)
	}
	for i := 0; i < 3; i++ {
		if _, err := m.ReadAll(ctx, "gs://b/o"); err != nil {
			t.Fatal(err)
		}
	}
	if opened != 1 || len(g.got) != 3 {
		t.Errorf("three gs:// reads: opener ran %d times, store saw %v; want 1 and three reads", opened, g.got)
	}
	for i := 0; i < 2; i++ {
		if _, err := m.ReadAll(ctx, "hf://datasets/o/n/f"); err == nil || !strings.Contains(err.Error(), "no token") {
			t.Errorf("hf:// with a failing opener: err = %v, want the opener's error", err)
		}
	}
	_, err := m.ReadAll(ctx, "s3://b/o")
	if !errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), "paths and file://, gs://, hf://") {
		t.Errorf("an unregistered scheme: err = %v, want a permanent error naming the schemes served", err)
	}
	if err := m.Close(); err != nil || closed != 1 {
		t.Errorf("Close: err %v, closed %d times; want nil, 1", err, closed)
	}
}

func TestRegisterPanics(t *testing.T) {
	for _, scheme := range []string{"", "GS", "g/s", "file"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", scheme)
				}
			}()
			m := New()
			m.Register("file", localblob.Store{})
			m.Register(scheme, localblob.Store{})
		}()
	}
}
