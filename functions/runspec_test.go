package functions

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
)

// TestReadSpecPassthrough: a run spec's passthrough list reaches the
// planner spec: absent is the default set (nil), [] is none.
func TestReadSpecPassthrough(t *testing.T) {
	dir := t.TempDir()
	s := &Server{cfg: Config{InputBuckets: []string{"in"}}, deps: Deps{Store: localblob.Store{}}}
	tests := []struct {
		name, json string
		want       string
	}{
		{"absent", `{"manifest": "gs://in/m/*.parquet"}`, "[] nil=true"},
		{"none", `{"manifest": "gs://in/m/*.parquet", "passthrough": []}`, "[] nil=false"},
		{"named", `{"manifest": "gs://in/m/*.parquet", "passthrough": ["note", "split"]}`, "[note split] nil=false"},
	}
	for i, tt := range tests {
		path := filepath.Join(dir, fmt.Sprint(i, ".run.json"))
		if err := os.WriteFile(path, []byte(tt.json), 0o644); err != nil {
			t.Fatal(err)
		}
		spec, err := s.readSpec(context.Background(), path, 1)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := fmt.Sprintf("%v nil=%v", spec.Passthrough, spec.Passthrough == nil); got != tt.want {
			t.Errorf("%s: passthrough %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestReadSpecAllowDuplicateIDs: the run spec's opt-in reaches the planner
// spec; absent, duplicates are refused.
func TestReadSpecAllowDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	s := &Server{cfg: Config{InputBuckets: []string{"in"}}, deps: Deps{Store: localblob.Store{}}}
	for i, tt := range []struct {
		json string
		want bool
	}{
		{`{"manifest": "gs://in/m/*.parquet"}`, false},
		{`{"manifest": "gs://in/m/*.parquet", "allow_duplicate_ids": true}`, true},
	} {
		path := filepath.Join(dir, fmt.Sprint(i, ".run.json"))
		if err := os.WriteFile(path, []byte(tt.json), 0o644); err != nil {
			t.Fatal(err)
		}
		spec, err := s.readSpec(context.Background(), path, 1)
		if err != nil || spec.AllowDuplicateIDs != tt.want {
			t.Errorf("%s: AllowDuplicateIDs %v (%v), want %v", tt.json, spec.AllowDuplicateIDs, err, tt.want)
		}
	}
}
