package blob_test

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
)

// TestPinConformance: a store pinned to a generation of one object is still
// a blob.Store for every other object (the planner and shardfn read every
// manifest through one).
func TestPinConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
		h := stores.Local(t, objects, "")
		h.Store = blob.Pin(h.Store, h.URI("another-manifest.parquet"), 1)
		return h
	})
}
