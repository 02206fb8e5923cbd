package gcs_test

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
)

// TestConformance runs the blob.Store suite over the GCS store on
// fake-gcs-server (TCP).
func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
		h, _ := stores.FakeGCS(t, objects, gcs.Options{AllowedBuckets: []string{stores.Bucket}})
		return h
	})
}
