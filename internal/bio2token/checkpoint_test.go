package bio2token

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeCheckpointFile(t *testing.T, w *Weights, extra map[string][]float32) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteCheckpoint(&buf, w, extra); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bio2token.ckpt")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckpointRoundTrip(t *testing.T) {
	for _, cfg := range []Config{smallConfig, DefaultConfig()} {
		w := testWeights(t, cfg, 9)
		path := writeCheckpointFile(t, w, map[string][]float32{"model.decoder.head.weight": {1, 2, 3}})
		got, err := LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("config %+v: loaded weights differ from written ones", cfg)
		}
		if cfg == DefaultConfig() && got.NumParams() != 467718 {
			t.Errorf("loaded %d parameters, want 467718", got.NumParams())
		}
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
	// A checkpoint without data.pkl, a truncated file, an extra encoder key.
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
	extra := writeCheckpointFile(t, w, map[string][]float32{CheckpointPrefix + "layers.0.mixer.bogus": {1}})
	if _, err := LoadCheckpoint(extra); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unexpected encoder key: err = %v", err)
	}
	if _, err := LoadCheckpoint(filepath.Join(dir, "absent")); err == nil {
		t.Error("missing file loaded")
	}
}
