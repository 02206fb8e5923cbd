package main

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
)

// TestCLIStoreConformance runs the blob.Store suite over the CLI's store
// registry (run, smoke, report, publish, fetch-manifest): local paths, and
// gs:// URIs through its lazily made GCS client (pointed at fake-gcs-server
// by STORAGE_EMULATOR_HOST, as run_gcs_test does).
func TestCLIStoreConformance(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
			h := stores.Local(t, objects, "file://")
			h.Store = cliStore(t)
			h.Foreign = "s3://bucket/x"
			return h
		})
	})
	t.Run("gcs", func(t *testing.T) {
		blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
			h, fake := stores.FakeGCS(t, objects, gcs.Options{})
			t.Setenv("STORAGE_EMULATOR_HOST", fake.URL)
			h.Store = cliStore(t)
			h.Foreign = ""
			return h
		})
	})
}

// cliStore is the CLI's store registry, closed when t ends.
func cliStore(t *testing.T) blob.Store {
	m := cliStores()
	t.Cleanup(func() { m.Close() })
	return m
}
