package planner

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// BucketLocator reports where a bucket keeps its data: a GCS location such
// as US-CENTRAL1 (a region), US (a multi-region) or NAM4 (a dual-region).
// gcs.Store implements it.
type BucketLocator interface {
	BucketLocation(ctx context.Context, bucket string) (string, error)
}

// CrossRegion returns one warning per bucket whose data is not in region
// (where the functions run), naming both: every read from such a bucket,
// and every write to it, crosses regions (slower, and billed as network
// egress). A bucket whose location cannot be read (no storage.buckets.get,
// as on a public bucket) gets a warning saying so. Nothing is returned when
// all are in region. Read-only and safe to repeat.
func CrossRegion(ctx context.Context, loc BucketLocator, region string, buckets []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range buckets {
		if b == "" || seen[b] {
			continue
		}
		seen[b] = true
		where, err := loc.BucketLocation(ctx, b)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("bucket %s: location unknown (%v); the functions run in %s: check that the bucket is there too", b, err, region))
		case !strings.EqualFold(where, region):
			out = append(out, fmt.Sprintf("bucket %s is in %s, the functions in %s: every read and write of it crosses regions", b, strings.ToLower(where), region))
		}
	}
	sort.Strings(out)
	return out
}
