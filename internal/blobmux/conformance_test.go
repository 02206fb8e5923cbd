package blobmux_test

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/blobmux"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// TestConformance runs the blob.Store suite over the router: local paths
// (no GCS store configured) and gs:// URIs routed to GCS on
// fake-gcs-server, generations included.
func TestConformance(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
			h := stores.Local(t, objects, "")
			m := blobmux.New()
			m.Register("file", h.Store)
			h.Store = m
			return h
		})
	})
	t.Run("gcs", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
			h, _ := stores.FakeGCS(t, objects, gcs.Options{})
			m := blobmux.New()
			m.Register("file", localblob.Store{})
			m.Register("gs", h.Store)
			h.Store = m
			h.Foreign = "hf://datasets/owner/name/x.parquet" // no HF store configured
			return h
		})
	})
}
