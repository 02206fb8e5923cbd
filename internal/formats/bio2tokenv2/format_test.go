package bio2tokenv2

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/bio2token/neural"
	"github.com/foldcorpus/foldcorpus/internal/format"
	"github.com/foldcorpus/foldcorpus/internal/mmcif"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

var triple = regexp.MustCompile(`^<p(\d+)> <([A-Z0-9']+)> <bt(\d+)>$`)

// TestGenerateRealStructures runs the format on small real files (AFDB,
// PDB with hydrogens and NMR models, RNA/protein mix) with full-size
// generated weights and checks each document against an independent
// decoding of its tokens: sequence section, one triple per kept atom with
// the reference encoder's code for that atom.
func TestGenerateRealStructures(t *testing.T) {
	dir := testcorpus.Dir(t)
	f, err := New(Options{Weights: "generated:1", Backend: "go", Rungs: b2t.DefaultRungs}, openNeural)
	if err != nil {
		t.Fatal(err)
	}
	w, err := neural.LoadWeights("generated:1")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"afdb/AF-C1P619-F1-model_v6.cif", "pdb/1l2y.cif", "edge/chimerax_AF-C1P619-F1-model_v6_addh.cif"} {
		t.Run(name, func(t *testing.T) {
			s, err := mmcif.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			entry := strings.TrimSuffix(filepath.Base(name), ".cif")
			res, err := f.Generate(format.Input{EntryID: entry, Structure: s})
			if err != nil {
				t.Fatal(err)
			}
			in, err := b2t.Adapt(s)
			if err != nil {
				t.Fatal(err)
			}
			_, want := b2t.ReferenceEncode(w, in.Coords)
			toks := strings.Fields(res.Document)
			nRes := len(in.ResNames)
			if toks[0] != "<bio2token-v2>" || toks[1] != "<begin_sequence>" || toks[2+2*nRes] != "<begin_statements>" || toks[len(toks)-1] != "<end>" {
				t.Fatalf("document layout: %.200s", res.Document)
			}
			for i := 0; i < nRes; i++ {
				if toks[2+2*i] != fmt.Sprintf("<p%d>", i) {
					t.Errorf("sequence position %d: %s", i, toks[2+2*i])
				}
			}
			// Each kept atom appears once; its code matches the float64
			// reference (allowing for float32 vs float64 at a rounding tie).
			expect := map[string]int{}
			for a := range in.AtomNames {
				expect[fmt.Sprintf("<p%d> <%s>", in.AtomRes[a], in.AtomNames[a])]++
			}
			body := toks[3+2*nRes : len(toks)-1]
			mismatch := 0
			codes := map[string][]int32{}
			for a := range in.AtomNames {
				k := fmt.Sprintf("<p%d> <%s>", in.AtomRes[a], in.AtomNames[a])
				codes[k] = append(codes[k], want[a])
			}
			if len(body)%3 != 0 {
				t.Fatalf("statement section has %d tokens, not triples", len(body))
			}
			for i := 0; i < len(body); i += 3 {
				tr := strings.Join(body[i:i+3], " ")
				m := triple.FindStringSubmatch(tr)
				if m == nil {
					t.Fatalf("bad triple %q", tr)
				}
				k := fmt.Sprintf("<p%s> <%s>", m[1], m[2])
				expect[k]--
				if ws := codes[k]; len(ws) == 0 || fmt.Sprint(ws[0]) != m[3] {
					mismatch++
				}
			}
			for k, n := range expect {
				if n != 0 {
					t.Errorf("atom %s: count off by %d", k, n)
				}
			}
			if mismatch > len(in.AtomNames)/100 {
				t.Errorf("%d of %d codes differ from the float64 reference", mismatch, len(in.AtomNames))
			}
			vals := res.Values
			if vals[0] != in.Sequence() || vals[1] != int64(nRes) || vals[2] != int64(len(in.AtomNames)) || vals[4] != false || vals[5] != int64(len(toks)) {
				t.Errorf("values %v", vals)
			}
			again, err := f.Generate(format.Input{EntryID: entry, Structure: s})
			if err != nil || again.Document != res.Document {
				t.Errorf("second Generate differs (err %v)", err)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	for _, tc := range []struct {
		kv      map[string]string
		wantErr bool
	}{
		{map[string]string{}, true},
		{map[string]string{OptWeights: "generated:x"}, true},
		{map[string]string{OptWeights: "generated:1", OptRungs: "0"}, true},
		{map[string]string{OptWeights: "/nonexistent.ckpt"}, true},
		{map[string]string{OptWeights: "generated:1", OptBackend: "nosuch"}, true},
		{map[string]string{OptWeights: "generated:1", OptRungs: "2"}, false},
	} {
		_, err := Constructor(openNeural)(tc.kv)
		if (err != nil) != tc.wantErr {
			t.Errorf("Constructor(openNeural)(%v): err = %v, want error %v", tc.kv, err, tc.wantErr)
		}
	}
}

// TestRemoteWeightsAdaptOnly: with gs:// weights (a cloud run spec, where
// the tokenize job reads the checkpoint) the format loads nothing, adapts
// as with local weights, and Generate fails saying the weights are the
// tokenize job's.
func TestRemoteWeightsAdaptOnly(t *testing.T) {
	s, err := mmcif.ReadFile(filepath.Join(testcorpus.Dir(t), "afdb", "AF-C1P619-F1-model_v6.cif"))
	if err != nil {
		t.Fatal(err)
	}
	in := format.Input{EntryID: "AF-C1P619-F1", Structure: s}
	remote, err := NewFromOptions(map[string]string{OptWeights: "gs://models/bio2token.ckpt"})
	if err != nil {
		t.Fatalf("gs:// weights: %v", err)
	}
	local, err := New(Options{Weights: "generated:1", Backend: "go", Rungs: b2t.DefaultRungs}, openNeural)
	if err != nil {
		t.Fatal(err)
	}
	got, filtered, err := remote.(format.Neural).Adapt(in)
	want, _, _ := local.Adapt(in)
	if err != nil || filtered != "" || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Adapt with gs:// weights = %v, %q, %v; want the local format's adaptation", got != nil, filtered, err)
	}
	if _, err := remote.Generate(in); err == nil || !strings.Contains(err.Error(), "gs://models/bio2token.ckpt") || !strings.Contains(err.Error(), "tokenize job") {
		t.Errorf("Generate with gs:// weights = %v, want an error naming the weights and the tokenize job", err)
	}
	if _, err := Constructor(openNeural)(map[string]string{OptWeights: "/nonexistent/bio2token.ckpt"}); err == nil {
		t.Error("a missing local checkpoint was accepted")
	}
}

// TestNoEncoder: without an encoder (the registry's NewFromOptions, which
// the Cloud Functions use) gs:// weights adapt, and any other weights are
// refused at New, naming them and the gs:// form, before any row runs.
func TestNoEncoder(t *testing.T) {
	for _, tc := range []struct {
		weights string
		wantErr bool
	}{
		{"gs://models/bio2token.ckpt", false},
		{"generated:1", true},
		{"/models/bio2token.ckpt", true},
	} {
		f, err := NewFromOptions(map[string]string{OptWeights: tc.weights})
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), tc.weights) || !strings.Contains(err.Error(), "weights=gs://") {
				t.Errorf("NewFromOptions(weights=%s) = %v, want an error naming the weights and weights=gs://", tc.weights, err)
			}
			continue
		}
		if err != nil || f.(*Format).Encoder() != nil {
			t.Errorf("NewFromOptions(weights=%s) = %v, %v; want an adapt-only format", tc.weights, f, err)
		}
	}
}

// openNeural is formats/inprocess.OpenEncoder (which this package's tests
// cannot import: it imports this package).
func openNeural(o Options) (Encoder, error) {
	e, err := neural.Open(o.Weights, o.Backend)
	if err != nil {
		return nil, err
	}
	return e, nil
}
