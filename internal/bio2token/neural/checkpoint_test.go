package neural

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
	"github.com/foldcorpus/foldcorpus/internal/testcorpus"
)

func writeCheckpointFile(t *testing.T, w *b2t.Weights, extra map[string][]float32) string {
	t.Helper()
	var buf bytes.Buffer
	if err := b2t.WriteCheckpoint(&buf, w, extra); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bio2token.ckpt")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// goldenCheckpoint is the shared corpus's checkpoint in the official
// layout, written by torch.save (PyTorch 1.13) with seeded random weights.
func goldenCheckpoint(t *testing.T) string {
	t.Helper()
	return filepath.Join(testcorpus.Dir(t), "golden", "bio2token", "bio2token-random-seed7.ckpt")
}

func TestCheckpointRoundTrip(t *testing.T) {
	for _, cfg := range []b2t.Config{smallConfig, b2t.DefaultConfig()} {
		w := testWeights(t, cfg, 9)
		path := writeCheckpointFile(t, w, map[string][]float32{"model.decoder.decoder.norm_f.weight": {1, 2, 3}})
		got, err := LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("config %+v: loaded weights differ from written ones", cfg)
		}
		if cfg == b2t.DefaultConfig() && got.NumParams() != 467718 {
			t.Errorf("loaded %d parameters, want 467718", got.NumParams())
		}
	}
}

// tensorStats is what testdata/golden_ckpt_tensors.py records of each
// tensor of the golden checkpoint, as PyTorch reads it.
type tensorStats struct {
	Shape  []int     `json:"shape"`
	Sum    float64   `json:"sum"`
	At     []int     `json:"at"`
	Values []float64 `json:"values"`
}

// TestLoadGoldenCheckpoint loads the PyTorch-written checkpoint and checks
// every tensor it maps against what PyTorch reads from the same file: the
// shape, three values bit for bit and the sum. Every key under
// CheckpointPrefix is mapped; only decoder keys are left out.
func TestLoadGoldenCheckpoint(t *testing.T) {
	w, err := LoadCheckpoint(goldenCheckpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	if w.Config != b2t.DefaultConfig() || w.NumParams() != 467718 {
		t.Errorf("golden checkpoint: config %+v with %d parameters, want %+v with 467718", w.Config, w.NumParams(), b2t.DefaultConfig())
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "golden_ckpt_tensors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]tensorStats
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	mapped := map[string]bool{}
	for _, p := range w.AllParams() {
		key := b2t.CheckpointPrefix + p.Name
		mapped[key] = true
		ts, ok := want[key]
		if !ok {
			t.Errorf("%s: not in the golden checkpoint", key)
			continue
		}
		if !equalInts(ts.Shape, p.Shape) {
			t.Errorf("%s: shape %v, PyTorch reads %v", key, p.Shape, ts.Shape)
		}
		data := *p.Data
		var sum float64
		for _, v := range data {
			sum += float64(v)
		}
		if math.Abs(sum-ts.Sum) > 1e-9*max(1, math.Abs(ts.Sum))*float64(len(data)) {
			t.Errorf("%s: sum %v, PyTorch reads %v", key, sum, ts.Sum)
		}
		for i, at := range ts.At {
			if float64(data[at]) != ts.Values[i] {
				t.Errorf("%s[%d] = %v, PyTorch reads %v", key, at, data[at], ts.Values[i])
			}
		}
	}
	decoder := 0
	for key := range want {
		switch {
		case strings.HasPrefix(key, b2t.DecoderPrefix):
			decoder++
		case !mapped[key]:
			t.Errorf("%s: in the golden checkpoint but not mapped", key)
		}
	}
	t.Logf("golden checkpoint: %d encoder/quantizer tensors mapped, %d decoder tensors skipped", len(mapped), decoder)
	if decoder == 0 {
		t.Error("golden checkpoint has no decoder tensors: the test data is not the official layout")
	}
}

// goldenEntries reads the golden checkpoint's state_dict as contiguous
// tensors, in file order, for rewriting.
func goldenEntries(t *testing.T) []b2t.CheckpointTensor {
	t.Helper()
	sd, err := readStateDict(goldenCheckpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]b2t.CheckpointTensor, len(sd))
	for i, e := range sd {
		data := make([]float32, numel(e.t.Size))
		if err := copyTensor(data, e.t); err != nil {
			t.Fatal(err)
		}
		out[i] = b2t.CheckpointTensor{Key: e.key, Shape: append([]int(nil), e.t.Size...), Data: data}
	}
	return out
}

// TestCheckpointLayoutErrors rewrites the golden checkpoint with one tensor
// missing, added, renamed or reshaped: each load fails with
// ErrCheckpointLayout and names the key; decoder changes do not matter.
func TestCheckpointLayoutErrors(t *testing.T) {
	base := goldenEntries(t)
	enc := func(name string) string { return b2t.CheckpointPrefix + name }
	drop := func(key string) func([]b2t.CheckpointTensor) []b2t.CheckpointTensor {
		return func(es []b2t.CheckpointTensor) []b2t.CheckpointTensor {
			var out []b2t.CheckpointTensor
			for _, e := range es {
				if e.Key != key {
					out = append(out, e)
				}
			}
			return out
		}
	}
	add := func(key string, shape ...int) func([]b2t.CheckpointTensor) []b2t.CheckpointTensor {
		return func(es []b2t.CheckpointTensor) []b2t.CheckpointTensor {
			return append(es, b2t.CheckpointTensor{Key: key, Shape: shape, Data: make([]float32, numel(shape))})
		}
	}
	edit := func(key string, f func(*b2t.CheckpointTensor)) func([]b2t.CheckpointTensor) []b2t.CheckpointTensor {
		return func(es []b2t.CheckpointTensor) []b2t.CheckpointTensor {
			for i := range es {
				if es[i].Key == key {
					f(&es[i])
				}
			}
			return es
		}
	}
	noDecoder := func(es []b2t.CheckpointTensor) []b2t.CheckpointTensor {
		var out []b2t.CheckpointTensor
		for _, e := range es {
			if !strings.HasPrefix(e.Key, b2t.DecoderPrefix) {
				out = append(out, e)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		rewrite func([]b2t.CheckpointTensor) []b2t.CheckpointTensor
		want    string // "" means the load succeeds
	}{
		{"official", func(es []b2t.CheckpointTensor) []b2t.CheckpointTensor { return es }, ""},
		{"missing mixer D", drop(enc("encoder.layers.2.mixer.D")), "missing " + enc("encoder.layers.2.mixer.D")},
		{"missing input projection", drop(enc("encoder.input_projection.weight")), "missing " + enc("encoder.input_projection.weight")},
		{"missing norm_f", drop(enc("encoder.norm_f.weight")), "missing " + enc("encoder.norm_f.weight")},
		{"missing project_in bias", drop(enc("quantizer.project_in.bias")), "missing " + enc("quantizer.project_in.bias")},
		{"missing project_out", drop(enc("quantizer.project_out.weight")), "missing " + enc("quantizer.project_out.weight")},
		{"missing layer 3 norm", drop(enc("encoder.layers.3.norm.weight")), "unexpected encoder keys [" + enc("encoder.layers.3.mixer.A_log")},
		{"unexpected encoder key", add(enc("encoder.layers.0.mixer.bogus"), 4), enc("encoder.layers.0.mixer.bogus")},
		{"unexpected top-level key", add("model.ema.encoder.norm_f.weight", 128), "unexpected keys [model.ema.encoder.norm_f.weight]"},
		{"pre-official layout", edit(enc("encoder.input_projection.weight"), func(e *b2t.CheckpointTensor) { e.Key = enc("in_proj.weight") }),
			"missing " + enc("encoder.input_projection.weight")},
		{"x_proj transposed", edit(enc("encoder.layers.1.mixer.x_proj.weight"), func(e *b2t.CheckpointTensor) { e.Shape = []int{256, 40} }),
			enc("encoder.layers.1.mixer.x_proj.weight") + " has shape [256 40], want [40 256]"},
		{"conv1d without channel axis", edit(enc("encoder.layers.0.mixer.conv1d.weight"), func(e *b2t.CheckpointTensor) { e.Shape = []int{256, 4} }),
			enc("encoder.layers.0.mixer.conv1d.weight") + " has shape [256 4]"},
		{"project_out transposed", edit(enc("quantizer.project_out.weight"), func(e *b2t.CheckpointTensor) { e.Shape = []int{6, 128} }),
			enc("quantizer.project_out.weight") + " has shape [6 128], want [128 6]"},
		{"no decoder", noDecoder, ""},
		{"odd decoder tensor", add(b2t.DecoderPrefix+"decoder.extra", 3, 5), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := make([]b2t.CheckpointTensor, len(base))
			copy(es, base)
			var buf bytes.Buffer
			if err := b2t.WriteTensors(&buf, tc.rewrite(es)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "rewritten.ckpt")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := LoadCheckpoint(path)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("LoadCheckpoint = %v, want success", err)
				}
				if w.NumParams() != 467718 {
					t.Errorf("loaded %d parameters", w.NumParams())
				}
				return
			}
			if err == nil || !errors.Is(err, b2t.ErrCheckpointLayout) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("LoadCheckpoint = %v, want ErrCheckpointLayout naming %q and the file", err, tc.want)
			}
		})
	}
}

func TestCheckpointStrided(t *testing.T) {
	// A transposed view: storage holds [[1,2,3],[4,5,6]] and the tensor is
	// its transpose (size [3,2], stride [1,3]) with offset 0.
	dst := make([]float32, 6)
	if err := copyTensorForTest(dst, []float32{1, 2, 3, 4, 5, 6}, []int{3, 2}, []int{1, 3}, 0); err != nil {
		t.Fatal(err)
	}
	if want := []float32{1, 4, 2, 5, 3, 6}; !reflect.DeepEqual(dst, want) {
		t.Errorf("strided copy = %v, want %v", dst, want)
	}
}

func TestCheckpointErrors(t *testing.T) {
	w := testWeights(t, smallConfig, 1)
	good := writeCheckpointFile(t, w, nil)
	data, _ := os.ReadFile(good)
	dir := t.TempDir()
	// A checkpoint without data.pkl, a truncated file.
	var noPkl bytes.Buffer
	zw := zip.NewWriter(&noPkl)
	f, _ := zw.Create("archive/version")
	f.Write([]byte("3\n"))
	zw.Close()
	cases := map[string][]byte{"nopkl": noPkl.Bytes(), "truncated": data[:len(data)/2]}
	for name, b := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		if _, err := LoadCheckpoint(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want an error naming the file", name, err)
		}
	}
	if _, err := LoadCheckpoint(filepath.Join(dir, "absent")); err == nil {
		t.Error("missing file loaded")
	}
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
