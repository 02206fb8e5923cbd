package hf_test

import (
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/blob/blobtest"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/hf/hubtest"
)

// TestStoreConformance runs the blob.Store suite over the read-only Hub
// store on the fake Hub: the objects are the files of its first commit.
func TestStoreConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T, objects map[string][]byte) blobtest.Harness {
		var files []hubtest.File
		for name, data := range objects {
			files = append(files, hubtest.File{Path: name, Data: data})
		}
		srv := hubtest.New(hubtest.Options{Repo: repo, Files: files})
		t.Cleanup(srv.Close)
		return blobtest.Harness{
			Store:    hf.NewStore(testClient(srv, "")),
			URI:      func(name string) string { return "hf://datasets/" + repo + "/" + name },
			ReadOnly: true,
			Foreign:  "gs://bucket/x.parquet",
		}
	})
}
