// Package stores builds blobtest harnesses over the concrete stores (local
// files, GCS on fake-gcs-server), for the conformance tests of those stores
// and of the stores that wrap them (blobmux, faultblob).
package stores

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/emulators"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// Local is a localblob.Store over a fresh temporary folder holding
// objects; URIs are plain paths, or file:// URIs when prefix is "file://".
func Local(t *testing.T, objects map[string][]byte, prefix string) blobtest.Harness {
	dir := t.TempDir()
	blobtest.Objects(t, objects, func(name string, data []byte) error {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	})
	return blobtest.Harness{
		Store:   localblob.Store{},
		URI:     func(name string) string { return prefix + filepath.Join(dir, filepath.FromSlash(name)) },
		Foreign: "gs://bucket/x",
	}
}

// Bucket is the bucket FakeGCS's objects are in.
const Bucket = "conformance"

// FakeGCS is a gcs.Store (with opts) on a fresh fake-gcs-server over TCP
// holding objects in Bucket; Overwrite writes a new generation behind the
// store's back. The server is returned too (its URL, for stores that make
// their own client through STORAGE_EMULATOR_HOST).
func FakeGCS(t *testing.T, objects map[string][]byte, opts gcs.Options) (blobtest.Harness, *emulators.FakeGCS) {
	f, c := emulators.RequireFakeGCS(t, Bucket)
	put := func(name string, data []byte) {
		f.Server.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: Bucket, Name: name}, Content: data})
	}
	blobtest.Objects(t, objects, func(name string, data []byte) error { put(name, data); return nil })
	return blobtest.Harness{
		Store:       gcs.New(c, opts),
		URI:         func(name string) string { return gcs.URI(Bucket, name) },
		Overwrite:   func(_ *testing.T, name string, data []byte) { put(name, data) },
		Generations: true,
		Foreign:     "file:///etc/passwd",
	}, f
}
