package bio2token

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/pytorch"
	"github.com/nlpodyssey/gopickle/types"
)

// CheckpointPrefix is the state_dict prefix of the encoder side of the
// official bio2token PyTorch Lightning checkpoint (the LightningModule's
// "model" attribute, whose "encoder" holds the Mamba stack and the FSQ
// quantizer). Below it the layout is the reference module tree's (MarinFold
// exp40 model.Encoder, which loads the official file with strict=True):
//
//	encoder.input_projection.weight            [128, 3]
//	encoder.layers.N.norm.weight               [128]
//	encoder.layers.N.mixer.in_proj.weight      [512, 128]
//	encoder.layers.N.mixer.conv1d.{weight [256,1,4], bias [256]}
//	encoder.layers.N.mixer.x_proj.weight       [40, 256]
//	encoder.layers.N.mixer.dt_proj.{weight [256,8], bias [256]}
//	encoder.layers.N.mixer.{A_log [256,16], D [256]}
//	encoder.layers.N.mixer.out_proj.weight     [128, 256]
//	encoder.norm_f.weight                      [128]
//	quantizer.project_in.{weight [6,128], bias [6]}
//	quantizer.project_out.{weight [128,6], bias [128]}  (not used to tokenize)
//
// The full list is Weights.allParams.
const CheckpointPrefix = "model.encoder."

// DecoderPrefix is the state_dict prefix of the decoder, which tokenizing
// does not need: the loader skips it.
const DecoderPrefix = "model.decoder."

// ErrCheckpointLayout classifies a checkpoint whose state_dict is not the
// official layout: a missing, unexpected or misshapen tensor. The error
// names the key.
var ErrCheckpointLayout = errors.New("checkpoint layout")

// LoadCheckpoint reads the encoder weights from a PyTorch (Lightning)
// checkpoint: a zip archive holding data.pkl (a pickled dict whose
// "state_dict" maps names to tensors) and one raw little-endian storage per
// tensor. Tensors under DecoderPrefix are skipped; every other key must be
// one of the official layout's (see CheckpointPrefix). The config is
// inferred from the shapes. A missing or unexpected key, a wrong shape or a
// non-float storage is an error naming the key (ErrCheckpointLayout for the
// first three). It reads the file only.
func LoadCheckpoint(path string) (*Weights, error) {
	sd, err := readStateDict(path)
	if err != nil {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w", path, err)
	}
	found := map[string]*pytorch.Tensor{}
	var unexpected []string
	for _, e := range sd {
		switch {
		case strings.HasPrefix(e.key, DecoderPrefix):
		case strings.HasPrefix(e.key, CheckpointPrefix):
			found[strings.TrimPrefix(e.key, CheckpointPrefix)] = e.t
		default:
			unexpected = append(unexpected, e.key)
		}
	}
	if len(unexpected) > 0 {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w: unexpected keys %v (outside %s and %s)",
			path, ErrCheckpointLayout, unexpected, CheckpointPrefix, DecoderPrefix)
	}
	w, err := weightsFromTensors(found)
	if err != nil {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w", path, err)
	}
	return w, nil
}

// stateEntry is one state_dict entry, in file order.
type stateEntry struct {
	key string
	t   *pytorch.Tensor
}

// readStateDict unpickles path and returns its state_dict's entries in order.
func readStateDict(path string) ([]stateEntry, error) {
	obj, err := pytorch.Load(path)
	if err != nil {
		return nil, err
	}
	top, ok := obj.(*types.Dict)
	if !ok {
		return nil, fmt.Errorf("top level is %T, want a dict", obj)
	}
	sdObj, ok := top.Get("state_dict")
	if !ok {
		return nil, fmt.Errorf("no state_dict")
	}
	var out []stateEntry
	add := func(k, v any) error {
		key, ok := k.(string)
		if !ok {
			return fmt.Errorf("state_dict key %v is %T, want a string", k, k)
		}
		t, ok := v.(*pytorch.Tensor)
		if !ok {
			return fmt.Errorf("%s is %T, want a tensor", key, v)
		}
		out = append(out, stateEntry{key, t})
		return nil
	}
	switch sd := sdObj.(type) {
	case *types.OrderedDict:
		for e := sd.List.Front(); e != nil; e = e.Next() {
			entry := e.Value.(*types.OrderedDictEntry)
			if err := add(entry.Key, entry.Value); err != nil {
				return nil, err
			}
		}
	case *types.Dict:
		for _, entry := range *sd {
			if err := add(entry.Key, entry.Value); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("state_dict is %T", sdObj)
	}
	return out, nil
}

func weightsFromTensors(found map[string]*pytorch.Tensor) (*Weights, error) {
	dim := func(key string, axis int) (int, error) {
		t, ok := found[key]
		if !ok {
			return 0, fmt.Errorf("%w: missing %s%s", ErrCheckpointLayout, CheckpointPrefix, key)
		}
		if axis >= len(t.Size) {
			return 0, fmt.Errorf("%w: %s%s has shape %v", ErrCheckpointLayout, CheckpointPrefix, key, t.Size)
		}
		return t.Size[axis], nil
	}
	var c Config
	var err error
	get := func(dst *int, key string, axis int) {
		if err == nil {
			*dst, err = dim(key, axis)
		}
	}
	get(&c.DModel, "encoder.input_projection.weight", 0)
	get(&c.DInner, "encoder.layers.0.mixer.in_proj.weight", 0)
	get(&c.DState, "encoder.layers.0.mixer.A_log", 1)
	get(&c.DTRank, "encoder.layers.0.mixer.dt_proj.weight", 1)
	get(&c.DConv, "encoder.layers.0.mixer.conv1d.weight", 2)
	if err != nil {
		return nil, err
	}
	c.DInner /= 2
	layerKey := func(i int) string { return "encoder.layers." + strconv.Itoa(i) + ".norm.weight" }
	for _, ok := found[layerKey(c.Layers)]; ok; _, ok = found[layerKey(c.Layers)] {
		c.Layers++
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	w := newWeights(c)
	used := map[string]bool{}
	for _, p := range w.allParams() {
		t, ok := found[p.name]
		if !ok {
			return nil, fmt.Errorf("%w: missing %s%s", ErrCheckpointLayout, CheckpointPrefix, p.name)
		}
		used[p.name] = true
		if !equalInts(t.Size, p.shape) {
			return nil, fmt.Errorf("%w: %s%s has shape %v, want %v", ErrCheckpointLayout, CheckpointPrefix, p.name, t.Size, p.shape)
		}
		if err := copyTensor(*p.data, t); err != nil {
			return nil, fmt.Errorf("%s%s: %w", CheckpointPrefix, p.name, err)
		}
	}
	var extra []string
	for k := range found {
		if !used[k] {
			extra = append(extra, CheckpointPrefix+k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, fmt.Errorf("%w: unexpected encoder keys %v", ErrCheckpointLayout, extra)
	}
	return w, w.check()
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// copyTensor copies t (any strides, any offset) into dst in row-major order.
func copyTensor(dst []float32, t *pytorch.Tensor) error {
	var at func(i int) float32
	var n int
	switch s := t.Source.(type) {
	case *pytorch.FloatStorage:
		at, n = func(i int) float32 { return s.Data[i] }, len(s.Data)
	case *pytorch.DoubleStorage:
		at, n = func(i int) float32 { return float32(s.Data[i]) }, len(s.Data)
	default:
		return fmt.Errorf("storage %T, want float32 or float64", t.Source)
	}
	idx := make([]int, len(t.Size))
	for flat := range dst {
		off := t.StorageOffset
		for a := range idx {
			off += idx[a] * t.Stride[a]
		}
		if off < 0 || off >= n {
			return fmt.Errorf("element %d at storage offset %d outside storage of %d", flat, off, n)
		}
		dst[flat] = at(off)
		for a := len(idx) - 1; a >= 0; a-- {
			idx[a]++
			if idx[a] < t.Size[a] {
				break
			}
			idx[a] = 0
		}
	}
	return nil
}
