package main

import (
	"context"
	"fmt"
	"os"

	"cloud.google.com/go/storage"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"

	"github.com/foldcorpus/foldcorpus/internal/blob"
	"github.com/foldcorpus/foldcorpus/internal/blobmux"
	"github.com/foldcorpus/foldcorpus/internal/gcs"
	"github.com/foldcorpus/foldcorpus/internal/hf"
	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// cliStores returns the CLI's store registry, used by every command that
// reads or writes objects named by the user: paths and file:// URIs on
// this machine's disk, gs:// through GCS with the adapter the deployed
// functions use (its client made at the first gs:// call, so that a
// local-only command needs no credentials: see openGCS), hf:// through the
// Hugging Face Hub (HF_TOKEN, HF_ENDPOINT). The caller calls Close when it
// made many (a test); a command's process owns its one.
func cliStores() *blobmux.Mux {
	m := blobmux.New()
	m.Register("file", localblob.Store{})
	m.RegisterOpener("gs", func(ctx context.Context) (blob.Store, func() error, error) { return openGCS(ctx, gcs.Options{}) })
	m.Register("hf", hf.NewStore(hf.New(hf.OptionsFromEnv(os.Getenv))))
	return m
}

// gcsAttempts is how many times the GCS client tries one request
// (its own backoff between them) before the error reaches the run.
const gcsAttempts = 3

// openGCS makes the GCS store: Application Default Credentials when there
// are any, else anonymous access (public buckets such as the AlphaFold
// DB's); STORAGE_EMULATOR_HOST points it at an emulator.
func openGCS(ctx context.Context, opts gcs.Options) (blob.Store, func() error, error) {
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
	// The client retries a refused connection on its own until the
	// context ends (a run then hung for as long); bound it, so that the
	// run's own attempts (printed, with their waits) decide.
	sc.SetRetry(storage.WithMaxAttempts(gcsAttempts))
	return gcs.New(sc, opts), sc.Close, nil
}
