package coordinatesv1_test

import (
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordinatesv1"
	"github.com/foldcorpus/foldcorpus/internal/harness/coordrun"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestRunConFind is the end-to-end run: every golden file through the
// driver of `foldcorpus run` with the registry's format, the contact
// degrees computed in the shard by ConFind with the mini rotamer library
// (rotlib=golden/confind-mini-rotlib): every document byte-identical, the
// reference's skips and caught analysis errors (too long, more than one
// chain, no protein residues) counted by reason, the files gemmi rejects
// failing their shards, DuckDB reading the output.
func TestRunConFind(t *testing.T) {
	lines := coordgolden.Load(t, "contacts-and-coordinates-v1.jsonl")
	opts := map[string]string{"rotlib": filepath.Join(testcorpus.Dir(t), "golden", "confind-mini-rotlib")}
	if n := coordrun.Run(t, coordinatesv1.Name, lines, opts, nil); n != 57 {
		t.Errorf("%d documents checked, want 57", n)
	}
}
