package main

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest/harness"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
)

// TestCLIStoreConformance runs the blob.Store suite over the store of
// `run` and `smoke`: local paths, and gs:// URIs through its lazily made
// GCS client (pointed at fake-gcs-server by STORAGE_EMULATOR_HOST, as
// run_gcs_test does).
func TestCLIStoreConformance(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
			h := harness.Local(t, objects, "file://")
			h.Store = cliStore()
			h.Foreign = "s3://bucket/x"
			return h
		})
	})
	t.Run("gcs", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
			h, fake := harness.FakeGCS(t, objects, gcs.Options{})
			t.Setenv("STORAGE_EMULATOR_HOST", fake.URL)
			h.Store = cliStore()
			h.Foreign = ""
			return h
		})
	})
}
