package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blobmux"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// openStore returns the blob store for a local command: local files, and
// GCS (the same adapter as the cloud path) when any of uris is gs://. GCS
// uses Application Default Credentials when there are any, else anonymous
// access (public buckets such as the AlphaFold DB's); STORAGE_EMULATOR_HOST
// points it at an emulator. The caller calls done.
func openStore(ctx context.Context, opts gcs.Options, uris ...string) (_ blob.Store, done func(), err error) {
	st := blobmux.Store{Local: localblob.Store{}}
	need := false
	for _, u := range uris {
		need = need || strings.HasPrefix(u, "gs://")
	}
	if !need {
		return st, func() {}, nil
	}
	var copts []option.ClientOption
	if os.Getenv("STORAGE_EMULATOR_HOST") == "" {
		if _, err := google.FindDefaultCredentials(ctx, storage.ScopeReadWrite); err != nil {
			fmt.Fprintf(os.Stderr, "no Application Default Credentials (%v): reading gs:// anonymously (public buckets only)\n", err)
			copts = append(copts, option.WithoutAuthentication())
		}
	}
	sc, err := storage.NewClient(ctx, copts...)
	if err != nil {
		return nil, nil, fmt.Errorf("GCS client: %w", err)
	}
	st.GCS = gcs.New(sc, opts)
	return st, func() { sc.Close() }, nil
}
