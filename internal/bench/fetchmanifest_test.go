package bench

import (
	"context"
	"testing"
)

// TestFetchManifestSmoke runs the fetch-manifest bench at a tiny size: both
// modes complete against the fake Hub with a quota that needs two windows.
func TestFetchManifestSmoke(t *testing.T) {
	args := []string{"--files", "12", "--rows", "8", "--latency", "1ms", "--quota", "8", "--window", "200ms", "--concurrency", "4", "--repeat", "1"}
	if err := FetchManifest(context.Background(), args); err != nil {
		t.Fatal(err)
	}
}
