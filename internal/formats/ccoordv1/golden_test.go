package ccoordv1

import (
	"path/filepath"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestGolden generates every golden line's file from its confind-mini
// analysis record: each document must be byte-identical (sha1 and text),
// its metadata equal, and each filter and error as the reference's rules
// say. Lines without a record (pyconfind fails on the file) are checked
// here as far as the reader goes; their analysis-side outcomes need ConFind
// and are checked end to end.
func TestGolden(t *testing.T) {
	dir := testcorpus.Dir(t)
	lines := coordgolden.Load(t, "contacts-and-coordinates-v1.jsonl")
	cfg := DefaultConfig()
	counts := map[string]int{}
	for _, l := range lines {
		want := l.Expected(t)
		st, err := mmcif.ReadFile(filepath.Join(dir, l.File))
		if want == coordgolden.ReadError {
			if err == nil && len(st.Models) == 0 && l.ErrorType == "IndexError" {
				// gemmi throws in its metadata reading on a valid CIF
				// without _atom_site; our reader reads it as 0 models
				// (mmcif/doc.go), which ConFind analyses as no residues.
				counts["read as 0 models (gemmi IndexError)"]++
				continue
			}
			if err == nil {
				t.Errorf("%s: read, but gemmi fails on it (%s)", l.File, *l.Reason)
			}
			counts[want]++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", l.File, err)
			continue
		}
		if l.Analysis == nil {
			counts["needs ConFind: "+want]++
			continue
		}
		d, filtered := Generate(st, l.Analysis, l.ID(), cfg)
		if want != "document" {
			if filtered != want {
				t.Errorf("%s: filtered %q, want %q (%s)", l.File, filtered, want, *l.Reason)
			}
			counts[want]++
			continue
		}
		if filtered != "" {
			t.Errorf("%s: filtered %q, want a document", l.File, filtered)
			continue
		}
		counts[want]++
		if d.SHA1 != l.SHA1 || d.Text != l.Document {
			t.Errorf("%s: sha1 %s (%d tokens), golden %s (%d tokens)\n%s", l.File, d.SHA1, d.NumTokens, l.SHA1, l.NumTokens, coordgolden.FirstDiff(d.Text, l.Document))
			continue
		}
		coordgolden.CheckMetadata(t, l, d.Metadata())
	}
	t.Logf("%d golden lines: %v", len(lines), counts)
	if counts["document"] != 57 {
		t.Errorf("%d documents compared, want the golden file's 57", counts["document"])
	}
}
