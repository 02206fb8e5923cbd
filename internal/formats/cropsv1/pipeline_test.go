package cropsv1_test

import (
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordrun"
	"github.com/foldcorpus/foldcorpus/internal/formats/cropsv1"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestRunReplay runs the golden files through the driver of `foldcorpus
// run` with the analysis replayed from confind-mini.jsonl (the degrees the
// golden documents were made from): every document byte-identical, the
// filtered line counted by reason, the reader's errors failing their
// shards, DuckDB reading the output.
func TestRunReplay(t *testing.T) {
	lines := coordgolden.Load(t, "contacts-and-crops-v1.jsonl")
	replay := coordrun.Replay(t, lines)
	newFormat := func(name string, opts map[string]string) (format.Format, error) {
		cfg, _, err := cropsv1.Configure(opts)
		if err != nil {
			return nil, err
		}
		return cropsv1.New(cfg, replay)
	}
	opts := map[string]string{"rotlib": filepath.Join(testcorpus.Dir(t), "golden", "confind-mini-rotlib")}
	if n := coordrun.Run(t, cropsv1.Name, lines, opts, true, newFormat); n != 57 {
		t.Errorf("%d documents checked, want 57", n)
	}
}

// TestRunConFind is the end-to-end run: every golden file through the
// driver of `foldcorpus run` with the registry's format, the contact
// degrees computed in the shard by ConFind with the mini rotamer library
// (rotlib=golden/confind-mini-rotlib): every document byte-identical, the
// reference's skips and caught analysis errors (too long, more than one
// chain, no protein residues) counted by reason, the files gemmi rejects
// failing their shards, DuckDB reading the output.
func TestRunConFind(t *testing.T) {
	lines := coordgolden.Load(t, "contacts-and-crops-v1.jsonl")
	opts := map[string]string{"rotlib": filepath.Join(testcorpus.Dir(t), "golden", "confind-mini-rotlib")}
	if n := coordrun.Run(t, cropsv1.Name, lines, opts, false, nil); n != 57 {
		t.Errorf("%d documents checked, want 57", n)
	}
}
