package emulators

import (
	"context"
	"fmt"
	"io"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"
)

// FakeGCS is fake-gcs-server serving HTTP on a real loopback listener (TCP
// mode: the in-process transport reports sizes real GCS never gives).
type FakeGCS struct {
	Server *fakestorage.Server
	// URL is the base URL, http://127.0.0.1:PORT.
	URL string
}

// FakeGCSOptions configure StartFakeGCS.
type FakeGCSOptions struct {
	// Buckets are created empty at start.
	Buckets []string
	// Events, when Topic is set, publishes object-finalize notifications of
	// Bucket to the Pub/Sub topic (PUBSUB_EMULATOR_HOST must be set first).
	Events fakestorage.EventManagerOptions
	// Log receives the server's request log; nil discards it.
	Log io.Writer
	// BucketsLocation is the location every bucket reports (GCS style, e.g.
	// US-CENTRAL1); empty reports none.
	BucketsLocation string
}

// StartFakeGCS starts fake-gcs-server over TCP on 127.0.0.1. The caller
// calls Stop.
func StartFakeGCS(opts FakeGCSOptions) (*FakeGCS, error) {
	var initial []fakestorage.Object
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		InitialObjects:  initial,
		Scheme:          "http",
		Host:            "127.0.0.1",
		PublicHost:      "127.0.0.1",
		EventOptions:    opts.Events,
		Writer:          opts.Log,
		BucketsLocation: opts.BucketsLocation,
	})
	if err != nil {
		return nil, fmt.Errorf("emulators.StartFakeGCS: %w", err)
	}
	for _, b := range opts.Buckets {
		srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: b})
	}
	return &FakeGCS{Server: srv, URL: srv.URL()}, nil
}

// Stop stops the server.
func (f *FakeGCS) Stop() { f.Server.Stop() }

// StorageClient returns a client talking to baseURL (the fake's URL, or a
// proxy in front of it) without credentials. The caller closes it.
func StorageClient(ctx context.Context, baseURL string, opts ...option.ClientOption) (*storage.Client, error) {
	all := append([]option.ClientOption{option.WithEndpoint(baseURL + "/storage/v1/"), option.WithoutAuthentication()}, opts...)
	return storage.NewClient(ctx, all...)
}

// RequireFakeGCS starts fake-gcs-server for one test with the given buckets
// and returns it with a client; both are closed at cleanup.
func RequireFakeGCS(tb testing.TB, buckets ...string) (*FakeGCS, *storage.Client) {
	tb.Helper()
	f, err := StartFakeGCS(FakeGCSOptions{Buckets: buckets})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.Stop)
	c, err := StorageClient(context.Background(), f.URL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return f, c
}
