package localblob_test

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/harness/stores"
)

// TestConformance runs the blob.Store suite over plain paths and over
// file:// URIs.
func TestConformance(t *testing.T) {
	for name, prefix := range map[string]string{"paths": "", "file-URIs": "file://"} {
		t.Run(name, func(t *testing.T) {
			blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
				return stores.Local(t, objects, prefix)
			})
		})
	}
}
