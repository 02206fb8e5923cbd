package coordfront_test

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foldcorpus/foldcorpus/internal/derrors"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/formats/contactsv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordfront/coordgolden"
	"github.com/foldcorpus/foldcorpus/internal/formats/coordinatesv1"
	"github.com/foldcorpus/foldcorpus/internal/formats/cropsv1"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/structure"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

// TestNonFinite: a joined atom with a NaN coordinate (mmCIF's '?', read
// as gemmi reads it) makes both formats' row a permanent error naming the
// atom, where the reference's round() raises ValueError, not a panic or
// a document; NaNs on atoms the join leaves out (a hydrogen's, and one in
// a residue the analysis does not list) change nothing.
func TestNonFinite(t *testing.T) {
	dir := testcorpus.Dir(t)
	var line coordgolden.Line
	for _, l := range coordgolden.Load(t, "contacts-and-coordinates-v1.jsonl") {
		if l.Outcome == "document" && l.Analysis != nil {
			line = l
			break
		}
	}
	read := func() *structure.Structure {
		st, err := mmcif.ReadFile(filepath.Join(dir, line.File))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	an := func(*structure.Structure, string) (*contactsv1.Analysis, error) { return line.Analysis, nil }
	cc, err := coordinatesv1.Kind.New(coordinatesv1.DefaultConfig(), an)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := cropsv1.Kind.New(cropsv1.DefaultConfig(), an)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []format.Format{cc, cr} {
		st := read()
		res := &st.Models[0].Chains[0].Polymer()[1]
		at := &res.Atoms[1]
		at.Y = math.NaN()
		_, err := f.Generate(format.Input{EntryID: line.ID(), Structure: st})
		if err == nil || !errors.Is(err, derrors.ErrPermanent) || !strings.Contains(err.Error(), "atom "+strings.TrimSpace(at.Name)) ||
			!strings.Contains(err.Error(), "non-finite") {
			t.Errorf("%s: a NaN coordinate gave error %v, want a permanent one naming atom %s", f.Name(), err, at.Name)
		}
		// NaNs the join never takes: a hydrogen's, and a residue's the
		// analysis does not list; the document is the unchanged one's
		want, err := f.Generate(format.Input{EntryID: line.ID(), Structure: read()})
		if err != nil || want.Document == "" {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		st = read()
		ch := &st.Models[0].Chains[0]
		res = &ch.Polymer()[1]
		res.Atoms = append(res.Atoms, structure.Atom{Name: "H", Element: "H", X: math.NaN()})
		extra := ch.Polymer()[len(ch.Polymer())-1]
		extra.AuthSeq, extra.Atoms = 9999, []structure.Atom{{Name: "CA", Element: "C", Y: math.Inf(1)}}
		ch.Residues = append(ch.Residues, extra)
		r, err := f.Generate(format.Input{EntryID: line.ID(), Structure: st})
		if err != nil || r.Document != want.Document {
			t.Errorf("%s: NaNs outside the join: %v (document equal: %v), want the unchanged document", f.Name(), err, r.Document == want.Document)
		}
	}
}
