package bio2token

import (
	"reflect"
	"testing"
)

func TestLadder(t *testing.T) {
	if got, want := Ladder(1), []int{256, 512, 1024, 2048, 4096, 8192, 16384}; !reflect.DeepEqual(got, want) {
		t.Errorf("Ladder(1) = %v, want %v", got, want)
	}
	l4 := Ladder(4)
	if len(l4) != 25 || l4[0] != 256 || l4[1] != 320 || l4[4] != 512 || l4[24] != 16384 {
		t.Errorf("Ladder(4) = %v", l4)
	}
	for _, tc := range []struct{ n, want int }{{1, 256}, {256, 256}, {257, 320}, {16384, 16384}, {16385, 32768}, {40000, 49152}} {
		if got := BucketFor(l4, tc.n); got != tc.want {
			t.Errorf("BucketFor(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct{ bucket, want int }{{256, 32}, {1024, 32}, {1280, 25}, {2048, 16}, {4096, 8}, {8192, 4}, {16384, 2}, {32768, 1}, {262144, 1}} {
		if got := BatchSize(tc.bucket); got != tc.want {
			t.Errorf("BatchSize(%d) = %d, want %d", tc.bucket, got, tc.want)
		}
	}
}

func TestPlanBatches(t *testing.T) {
	ladder := Ladder(1)
	atoms := []int{10, 300, 20, 9000, 250}
	for i := 0; i < 33; i++ {
		atoms = append(atoms, 100)
	}
	batches := PlanBatches(ladder, atoms)
	seen := map[int]bool{}
	for _, b := range batches {
		if len(b.Items) == 0 || len(b.Items) > b.Shape.Batch {
			t.Errorf("batch %+v has %d items", b.Shape, len(b.Items))
		}
		for _, i := range b.Items {
			if seen[i] || BucketFor(ladder, atoms[i]) != b.Shape.Length {
				t.Errorf("item %d (%d atoms) in batch %+v (seen before: %v)", i, atoms[i], b.Shape, seen[i])
			}
			seen[i] = true
		}
	}
	if len(seen) != len(atoms) {
		t.Errorf("%d of %d items batched", len(seen), len(atoms))
	}
	// 36 items of bucket 256: two batches of 32 rows; 300 -> 512; 9000 -> 16384.
	if len(batches) != 4 {
		t.Errorf("%d batches, want 4: %+v", len(batches), batches)
	}
	want := 0.0
	for _, n := range atoms {
		want += float64(n)
	}
	want /= float64(2*32*256 + 32*512 + 2*16384)
	if got := PaddingEfficiency(batches, atoms); got != want {
		t.Errorf("PaddingEfficiency = %v, want %v", got, want)
	}
}

// TestEncodeAllEqualsSingles: batched, bucketed tokenization of mixed
// inputs equals tokenizing each alone (small model, short inputs).
