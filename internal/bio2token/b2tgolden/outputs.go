package b2tgolden

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/manifest"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// Smallest returns the n golden files with the fewest atoms (for the
// pipeline tests, which run the full-size encoder on the CPU backend).
func Smallest(files []File, n int) []File {
	out := append([]File(nil), files...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].NumAtomsTotal < out[j].NumAtomsTotal })
	return out[:min(n, len(out))]
}

// Input reads and adapts a golden file as the shard function does and
// checks the adaptation against the reference's.
func Input(tb testing.TB, g File) *b2t.Input {
	tb.Helper()
	s, err := mmcif.ReadFile(g.Path)
	if err != nil {
		tb.Fatal(err)
	}
	in, err := b2t.Adapt(s)
	if err != nil {
		tb.Fatal(err)
	}
	CheckInput(tb, g, in)
	return in
}

// OutputColumns are the corpus columns Outputs.Rows reads.
var OutputColumns = []string{"structure", "entry_id", "sha1", "document", "seq_length", "num_atoms", "num_atoms_total", "truncated", "num_tokens"}

// Outputs checks a run's output rows against the golden files: each file
// (matched by the base name of the row's structure URI) exactly once, its
// entry id and document as CheckDocument wants, its sha1 that of its
// document.
type Outputs struct {
	Path                string // names the path in messages
	files               map[string]File
	inputs              map[string]*b2t.Input
	seen                map[string]int
	Identical, NearTies int
}

// NewOutputs expects one document per file of files.
func NewOutputs(tb testing.TB, path string, files []File) *Outputs {
	tb.Helper()
	o := &Outputs{Path: path, files: map[string]File{}, inputs: map[string]*b2t.Input{}, seen: map[string]int{}}
	for _, g := range files {
		o.files[filepath.Base(g.File)] = g
		o.inputs[filepath.Base(g.File)] = Input(tb, g)
	}
	return o
}

// Rows checks rows read with OutputColumns.
func (o *Outputs) Rows(tb testing.TB, rows *manifest.Rows) error {
	tb.Helper()
	for _, v := range rows.Values {
		structure, _ := v[0].(string)
		base := filepath.Base(structure)
		g, ok := o.files[base]
		if !ok {
			return fmt.Errorf("%s: output row for %q matches no golden file", o.Path, structure)
		}
		o.seen[base]++
		if v[1] != g.EntryID {
			tb.Errorf("%s: %s: entry_id %v, reference %s", o.Path, g.File, v[1], g.EntryID)
		}
		text, _ := v[3].(string)
		doc := b2t.Document{Text: text}
		ints := []*int{&doc.SeqLength, &doc.NumAtoms, &doc.NumAtomsTotal, nil, &doc.NumTokens}
		for k, dst := range ints {
			if dst != nil {
				n, _ := v[4+k].(int64)
				*dst = int(n)
			}
		}
		doc.Truncated, _ = v[7].(bool)
		differ := CheckDocument(tb, o.Path, g, o.inputs[base], doc)
		if differ == 0 {
			o.Identical++
			if v[2] != g.SHA1 {
				tb.Errorf("%s: %s: sha1 %v, reference %s", o.Path, g.File, v[2], g.SHA1)
			}
		} else {
			o.NearTies++
		}
	}
	return nil
}

// Done checks that every file had exactly one document and logs the counts.
func (o *Outputs) Done(tb testing.TB) {
	tb.Helper()
	for base, g := range o.files {
		if o.seen[base] != 1 {
			tb.Errorf("%s: %s: %d documents, want 1", o.Path, g.File, o.seen[base])
		}
	}
	tb.Logf("%s: %d documents, %d byte-identical to the reference (sha1 too), %d differing in code tokens (each checked to be of a near-tie atom)",
		o.Path, o.Identical+o.NearTies, o.Identical, o.NearTies)
}
