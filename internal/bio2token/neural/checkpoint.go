package neural

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/pytorch"
	"github.com/nlpodyssey/gopickle/types"

	b2t "github.com/foldcorpus/foldcorpus/internal/bio2token"
)

// LoadCheckpoint reads the encoder weights from a PyTorch (Lightning)
// checkpoint: a zip archive holding data.pkl (a pickled dict whose
// "state_dict" maps names to tensors) and one raw little-endian storage per
// tensor. Tensors under DecoderPrefix are skipped; every other key must be
// one of the official layout's (see CheckpointPrefix). The config is
// inferred from the shapes. A missing or unexpected key, a wrong shape or a
// non-float storage is an error naming the key (ErrCheckpointLayout for the
// first three). It reads the file only.
func LoadCheckpoint(path string) (*b2t.Weights, error) {
	sd, err := readStateDict(path)
	if err != nil {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w", path, err)
	}
	found := map[string]*pytorch.Tensor{}
	var unexpected []string
	for _, e := range sd {
		switch {
		case strings.HasPrefix(e.key, b2t.DecoderPrefix):
		case strings.HasPrefix(e.key, b2t.CheckpointPrefix):
			found[strings.TrimPrefix(e.key, b2t.CheckpointPrefix)] = e.t
		default:
			unexpected = append(unexpected, e.key)
		}
	}
	if len(unexpected) > 0 {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w: unexpected keys %v (outside %s and %s)",
			path, b2t.ErrCheckpointLayout, unexpected, b2t.CheckpointPrefix, b2t.DecoderPrefix)
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

func weightsFromTensors(found map[string]*pytorch.Tensor) (*b2t.Weights, error) {
	dim := func(key string, axis int) (int, error) {
		t, ok := found[key]
		if !ok {
			return 0, fmt.Errorf("%w: missing %s%s", b2t.ErrCheckpointLayout, b2t.CheckpointPrefix, key)
		}
		if axis >= len(t.Size) {
			return 0, fmt.Errorf("%w: %s%s has shape %v", b2t.ErrCheckpointLayout, b2t.CheckpointPrefix, key, t.Size)
		}
		return t.Size[axis], nil
	}
	var c b2t.Config
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
	w := b2t.NewWeights(c)
	used := map[string]bool{}
	for _, p := range w.AllParams() {
		t, ok := found[p.Name]
		if !ok {
			return nil, fmt.Errorf("%w: missing %s%s", b2t.ErrCheckpointLayout, b2t.CheckpointPrefix, p.Name)
		}
		used[p.Name] = true
		if !equalInts(t.Size, p.Shape) {
			return nil, fmt.Errorf("%w: %s%s has shape %v, want %v", b2t.ErrCheckpointLayout, b2t.CheckpointPrefix, p.Name, t.Size, p.Shape)
		}
		if err := copyTensor(*p.Data, t); err != nil {
			return nil, fmt.Errorf("%s%s: %w", b2t.CheckpointPrefix, p.Name, err)
		}
	}
	var extra []string
	for k := range found {
		if !used[k] {
			extra = append(extra, b2t.CheckpointPrefix+k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, fmt.Errorf("%w: unexpected encoder keys %v", b2t.ErrCheckpointLayout, extra)
	}
	return w, w.Check()
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
