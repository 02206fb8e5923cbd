package blobmux

import (
	"context"
	"errors"
	"path/filepath"
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

func TestRoute(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	local := filepath.Join(dir, "a.txt")
	if err := (localblob.Store{}).Create(ctx, local, []byte("local")); err != nil {
		t.Fatal(err)
	}
	g := &recorder{}
	s := Store{Local: localblob.Store{}, GCS: g}
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
		if _, err := (Store{Local: localblob.Store{}}).ReadAll(ctx, u); !errors.Is(err, derrors.ErrPermanent) {
			t.Errorf("%s without its store: err = %v, want permanent", u, err)
		}
	}
	h := &recorder{}
	if _, err := (Store{Local: localblob.Store{}, GCS: g, HF: h}).ReadAll(ctx, "hf://datasets/o/n/f.parquet"); err != nil || len(h.got) != 1 {
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
	s := Store{Local: localblob.Store{}, GCS: &recorder{}}
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
	if (Store{Local: localblob.Store{}}).ReadsInPlace("gs://b/o") {
		t.Error("ReadsInPlace(gs://) without a GCS store = true")
	}
}
