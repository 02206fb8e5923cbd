package bench

import (
	"slices"
	"testing"
)

// TestOwnWorkBuckets: the floor line sums the buckets named in runOwnWork
// and docOwnWork; a name no bucket has would add nothing, silently.
func TestOwnWorkBuckets(t *testing.T) {
	for _, name := range slices.Concat(runOwnWork, docOwnWork) {
		if !slices.ContainsFunc(cpuBuckets, func(b cpuBucket) bool { return b.name == name }) {
			t.Errorf("%q is not a CPU bucket", name)
		}
	}
}
