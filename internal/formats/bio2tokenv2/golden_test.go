package bio2tokenv2_test

import (
	"os"
	"testing"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/b2tgolden"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/format"
	fb2t "github.com/foldcorpus/foldcorpus/internal/formats/bio2tokenv2"
	"github.com/foldcorpus/foldcorpus/internal/formats/inprocess"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
)

// TestGoldenCodesAndDocuments holds the format, on the pure-Go CPU backend
// with the golden checkpoint (official layout, written by PyTorch), to the
// reference generator's outputs: the adapted atoms; the code of every atom
// with FSQ margin >= 1e-4 from an unpadded single-structure pass; and the
// document Generate writes (its bucket-padded pass), byte-identical except
// for code tokens of near-tie atoms. With FOLDCORPUS_B2T_GOLDEN_ALL=1 (every
// golden file: a long run) it makes one pass per file, the bucket-padded
// program Generate runs, and checks its codes and their document.
func TestGoldenCodesAndDocuments(t *testing.T) {
	files := b2tgolden.Load(t)
	f, err := fb2t.New(fb2t.Options{Weights: b2tgolden.Checkpoint(t), Backend: "go", Rungs: b2t.DefaultRungs}, inprocess.OpenEncoder)
	if err != nil {
		t.Fatal(err)
	}
	var tally b2tgolden.Tally
	identical, clean, nearTieOnly := 0, 0, 0
	all := os.Getenv(b2tgolden.AllEnv) == "1" // the long run: one pass per file, smallest first
	if all {
		files = b2tgolden.Smallest(files, len(files))
	}
	for _, g := range files {
		s, err := mmcif.ReadFile(g.Path)
		if err != nil {
			t.Fatal(err)
		}
		in, err := b2t.Adapt(s)
		if err != nil {
			t.Fatal(err)
		}
		allAbove := true
		for _, m := range g.FSQMargin {
			allAbove = allAbove && m >= b2tgolden.MinMargin
		}
		if allAbove {
			clean++
		}
		b2tgolden.CheckInput(t, g, in)
		if all {
			// One pass per file: the bucket-padded single-row program
			// Generate runs; its codes are tallied and assembled.
			n := in.NumAtoms()
			codes, err := f.Encoder().RunBatch(0, b2t.Batch{Shape: b2t.Shape{Batch: 1, Length: b2t.BucketFor(b2t.Ladder(b2t.DefaultRungs), n)}, Items: []int{0}}, []*b2t.Input{in})
			if err != nil {
				t.Fatal(err)
			}
			flips := tally.Codes(t, "cpu padded", g, codes[0])
			doc, _, err := b2t.Assemble(g.EntryID, in, codes[0])
			if err != nil {
				t.Fatal(err)
			}
			differ := b2tgolden.CheckDocument(t, "cpu padded", g, in, doc)
			if differ == 0 {
				identical++
			} else {
				nearTieOnly++
			}
			t.Logf("%s: %d atoms, %d with another code than the reference, %d document tokens differ", g.File, n, flips, differ)
			continue
		}
		codes, err := f.Encoder().(*neural.Encoder).Encode(in)
		if err != nil {
			t.Fatal(err)
		}
		tally.Codes(t, "cpu unpadded", g, codes)

		res, err := f.Generate(format.Input{EntryID: g.EntryID, Structure: s})
		if err != nil || res.Filtered != "" {
			t.Fatalf("%s: Generate = %v, filtered %q", g.File, err, res.Filtered)
		}
		doc := b2t.Document{Text: res.Document, Sequence: res.Values[0].(string), SeqLength: int(res.Values[1].(int64)),
			NumAtoms: int(res.Values[2].(int64)), NumAtomsTotal: int(res.Values[3].(int64)), Truncated: res.Values[4].(bool), NumTokens: int(res.Values[5].(int64))}
		switch differ := b2tgolden.CheckDocument(t, "cpu format", g, in, doc); {
		case differ == 0:
			identical++
		default:
			nearTieOnly++
		}
	}
	if all {
		tally.Log(t, "cpu padded")
	} else {
		tally.Log(t, "cpu unpadded")
	}
	t.Logf("documents: %d files, %d byte-identical to the reference, %d differing only in near-tie code tokens; %d files have every atom at margin >= %g",
		len(files), identical, nearTieOnly, clean, b2tgolden.MinMargin)
}
