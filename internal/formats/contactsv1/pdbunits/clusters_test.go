package pdbunits

import (
	"strings"
	"testing"
)

func TestReadClusters(t *testing.T) {
	// Line numbers count every line (an empty one too); "\r\n" and a lone
	// "\r" end lines as Python's text mode; members are upper-cased; a
	// member listed twice takes its last line.
	text := "1abc_1 2DEF_1\r\n\n3GHI_2\r4JKL_1 1ABC_1\n5mno_1"
	c, err := ReadClusters(strings.NewReader(text), "t.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pdb, entity string
		want        int64
	}{
		{"2def", "1", 0}, {"3ghi", "2", 2}, {"4JKL", "1", 3}, {"1abc", "1", 3}, {"5MNO", "1", 4},
		{"2def", "2", -1}, {"9xyz", "1", -1},
	} {
		if got := c.ID(tc.pdb, tc.entity); got != tc.want {
			t.Errorf("ID(%s, %s) = %d, want %d", tc.pdb, tc.entity, got, tc.want)
		}
	}
	if c.Len() != 5 {
		t.Errorf("Len = %d, want 5", c.Len())
	}
	// The entity id is looked up as it is (exp222 upper-cases the PDB id
	// only), while the file's members are upper-cased.
	c, err = ReadClusters(strings.NewReader("1ABC_a\n"), "t.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.ID("1abc", "a"); got != -1 {
		t.Errorf("lower-case entity id found (%d): exp222 does not upper-case it", got)
	}
	if got := c.ID("1abc", "A"); got != 0 {
		t.Errorf("ID(1abc, A) = %d, want 0", got)
	}
	var none *Clusters
	if none.ID("1abc", "1") != -1 {
		t.Error("a nil table must give -1")
	}
}

func TestReadClustersErrors(t *testing.T) {
	_, err := ReadClusters(strings.NewReader("1ABC_1\n2DEF_1 \xff\n"), "bad.txt")
	if err == nil || !strings.Contains(err.Error(), "bad.txt line 2") {
		t.Fatalf("invalid UTF-8: error %v, want one naming bad.txt line 2", err)
	}
	if _, err := ReadClustersFile("/nonexistent/clusters.txt"); err == nil || !strings.Contains(err.Error(), "/nonexistent/clusters.txt") {
		t.Fatalf("missing file: error %v, want one naming the file", err)
	}
}
