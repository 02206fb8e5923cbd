package synthmanifest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/localblob"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
)

func TestGenerateIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Rows: 5000, Files: 2, Seed: 11, CifBytes: 100}
	a, err := Generate(context.Background(), filepath.Join(dir, "a"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(context.Background(), filepath.Join(dir, "b"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed++
	c, err := Generate(context.Background(), filepath.Join(dir, "c"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		x, _ := os.ReadFile(a[i])
		y, _ := os.ReadFile(b[i])
		z, _ := os.ReadFile(c[i])
		if !bytes.Equal(x, y) {
			t.Errorf("%s: same config, different bytes", filepath.Base(a[i]))
		}
		if bytes.Equal(x, z) {
			t.Errorf("%s: different seeds, same bytes", filepath.Base(a[i]))
		}
	}
}

// TestGenerateShape checks the properties the selection tests and the
// benchmark rely on: every edge the rules care about occurs.
func TestGenerateShape(t *testing.T) {
	paths, err := Generate(context.Background(), t.TempDir(), Config{Rows: 40_000, Files: 3, Seed: 1, CifBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	var rows, nullCluster, outOfBounds int
	sizes := map[string]int{}
	splits := map[string]int{}
	ids := map[string]bool{}
	for _, p := range paths {
		s, err := manifest.ReadSchema(context.Background(), localblob.Store{}, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Column("cif_content"); !ok {
			t.Errorf("%s: no cif_content column", p)
		}
		err = manifest.ReadFile(context.Background(), localblob.Store{}, p, nil,
			[]string{"entry_id", "struct_cluster_id", "seq_len", "split"}, func(r *manifest.Rows) error {
				for _, v := range r.Values {
					rows++
					ids[v[0].(string)] = true
					if v[1] == nil {
						nullCluster++
					} else {
						sizes[v[1].(string)]++
					}
					if n := v[2].(int64); n < 2 || n > 2000 {
						outOfBounds++
					}
					splits[v[3].(string)]++
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	small := 0
	for _, n := range sizes {
		if n < 3 {
			small++
		}
	}
	switch {
	case rows != 40_000 || len(ids) != rows:
		t.Errorf("%d rows, %d distinct entry ids; want 40000 of each", rows, len(ids))
	case nullCluster == 0 || outOfBounds == 0:
		t.Errorf("%d null clusters, %d seq_len out of 2..2000: want some of each", nullCluster, outOfBounds)
	case len(splits) != 3:
		t.Errorf("splits %v, want train, val and test", splits)
	case small*2 < len(sizes) || float64(rows)/float64(len(sizes)) < 5:
		t.Errorf("%d clusters, %d with < 3 members: want more than half small and a heavy tail", len(sizes), small)
	}
}
