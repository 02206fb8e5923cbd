package faultblob_test

import (
	"testing"
	"time"

	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/faultblob"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
)

// TestConformance: a faultblob.Store with latency (and no injected
// failure) is still a blob.Store, over local files and over GCS with its
// generations.
func TestConformance(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
			h := stores.Local(t, objects, "")
			h.Store = faultblob.New(h.Store, time.Millisecond)
			return h
		})
	})
	t.Run("gcs", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
			h, _ := stores.FakeGCS(t, objects, gcs.Options{})
			h.Store = faultblob.New(h.Store, time.Millisecond)
			return h
		})
	})
}
