package selection

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClusterAcrossSplitsWarns: a struct_cluster_id whose selected rows
// fall in two splits is the leak duplicate ids are (similar structures in
// train and validation); select warns, naming how many clusters and
// examples, in its stats and selection_stats.json (issue 53).
func TestClusterAcrossSplitsWarns(t *testing.T) {
	dir := t.TempDir()
	in := writeManifest(t, dir, "m.parquet", []mrow{
		{"A1", "train", "C1", 90, 100}, {"A2", "train", "C1", 80, 100}, {"A3", "valid", "C1", 70, 100},
		{"B1", "train", "C2", 90, 100}, {"B2", "train", "C2", 80, 100}, {"B3", "train", "C2", 70, 100},
		{"D1", "valid", "C3", 90, 100}, {"D2", "valid", "C3", 80, 100}, {"D3", "valid", "C3", 70, 100},
	})
	opts := DefaultOptions()
	opts.Inputs = []string{in}
	opts.OutDir = filepath.Join(dir, "out")
	st, err := Select(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.ClustersAcrossSplits != 1 {
		t.Errorf("clusters across splits = %d, want 1 (C1)", st.ClustersAcrossSplits)
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "1 struct_cluster_id") || !strings.Contains(st.Warnings[0], `"C1"`) ||
		!strings.Contains(st.Warnings[0], "train") || !strings.Contains(st.Warnings[0], "valid") || strings.Contains(st.Warnings[0], "C2") {
		t.Errorf("warnings %q: want one naming 1 cluster, C1 and its splits, not C2", st.Warnings)
	}
	b, err := os.ReadFile(filepath.Join(opts.OutDir, StatsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"clusters_across_splits": 1`) || !strings.Contains(string(b), "C1") {
		t.Errorf("%s does not record the cluster across splits:\n%s", StatsFile, b)
	}

	// One split per cluster: no warning.
	in2 := writeManifest(t, dir, "m2.parquet", []mrow{
		{"B1", "train", "C2", 90, 100}, {"B2", "train", "C2", 80, 100}, {"B3", "train", "C2", 70, 100},
	})
	opts.Inputs, opts.OutDir = []string{in2}, filepath.Join(dir, "out2")
	if st, err = Select(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if st.ClustersAcrossSplits != 0 || len(st.Warnings) != 0 {
		t.Errorf("one split per cluster: %d across, warnings %q; want none", st.ClustersAcrossSplits, st.Warnings)
	}
}
