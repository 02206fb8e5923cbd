package planner

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type locations map[string]string

func (l locations) BucketLocation(_ context.Context, b string) (string, error) {
	if loc, ok := l[b]; ok {
		return loc, nil
	}
	return "", errors.New("403 Forbidden")
}

func TestCrossRegion(t *testing.T) {
	loc := locations{"in": "US-CENTRAL1", "out": "us-central1", "afdb": "US", "eu": "EUROPE-WEST4"}
	for _, tc := range []struct {
		buckets []string
		want    []string // substrings, one per warning, in order
	}{
		{[]string{"in", "out", "in"}, nil},
		{[]string{"in", "afdb"}, []string{"bucket afdb is in us, the functions in us-central1"}},
		{[]string{"eu", "out"}, []string{"bucket eu is in europe-west4, the functions in us-central1"}},
		{[]string{"secret"}, []string{"bucket secret: location unknown (403 Forbidden); the functions run in us-central1"}},
	} {
		got := CrossRegion(context.Background(), loc, "us-central1", tc.buckets)
		if len(got) != len(tc.want) {
			t.Errorf("CrossRegion(%v) = %q, want %d warnings", tc.buckets, got, len(tc.want))
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tc.want[i]) {
				t.Errorf("CrossRegion(%v)[%d] = %q, want %q", tc.buckets, i, got[i], tc.want[i])
			}
		}
	}
}
