package bio2token

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/nlpodyssey/gopickle/pytorch"
	"github.com/nlpodyssey/gopickle/types"
)

// CheckpointPrefix is the state_dict prefix of the encoder's parameters in
// the official PyTorch Lightning checkpoint. Below it, parameters are named
// as mamba_ssm names them: in_proj.weight, layers.N.norm.weight,
// layers.N.mixer.{in_proj,conv1d,x_proj,dt_proj,out_proj}.*,
// layers.N.mixer.{A_log,D}, norm_f.weight, quantizer.project_in.{weight,bias}
// (the full list is Weights.params).
const CheckpointPrefix = "model.encoder."

// LoadCheckpoint reads the encoder weights from a PyTorch (Lightning)
// checkpoint: a zip archive holding data.pkl (a pickled dict whose
// "state_dict" maps names to tensors) and one raw little-endian storage per
// tensor. Keys outside CheckpointPrefix (decoder, optimizer) are ignored;
// the config is inferred from the shapes; a missing or unexpected encoder
// parameter, a wrong shape or a non-float storage is an error naming the
// key. It reads the file only.
func LoadCheckpoint(path string) (*Weights, error) {
	obj, err := pytorch.Load(path)
	if err != nil {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w", path, err)
	}
	top, ok := obj.(*types.Dict)
	if !ok {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): top level is %T, want a dict", path, obj)
	}
	sdObj, ok := top.Get("state_dict")
	if !ok {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): no state_dict", path)
	}
	found := map[string]*pytorch.Tensor{}
	add := func(k, v any) error {
		key, _ := k.(string)
		if !strings.HasPrefix(key, CheckpointPrefix) {
			return nil
		}
		t, ok := v.(*pytorch.Tensor)
		if !ok {
			return fmt.Errorf("%s is %T, want a tensor", key, v)
		}
		found[strings.TrimPrefix(key, CheckpointPrefix)] = t
		return nil
	}
	switch sd := sdObj.(type) {
	case *types.OrderedDict:
		for e := sd.List.Front(); e != nil; e = e.Next() {
			entry := e.Value.(*types.OrderedDictEntry)
			if err := add(entry.Key, entry.Value); err != nil {
				return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w", path, err)
			}
		}
	case *types.Dict:
		for _, entry := range *sd {
			if err := add(entry.Key, entry.Value); err != nil {
				return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w", path, err)
			}
		}
	default:
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): state_dict is %T", path, sdObj)
	}
	w, err := weightsFromTensors(found)
	if err != nil {
		return nil, fmt.Errorf("bio2token: LoadCheckpoint(%s): %w", path, err)
	}
	return w, nil
}

func weightsFromTensors(found map[string]*pytorch.Tensor) (*Weights, error) {
	dim := func(key string, axis int) (int, error) {
		t, ok := found[key]
		if !ok {
			return 0, fmt.Errorf("missing %s%s", CheckpointPrefix, key)
		}
		if axis >= len(t.Size) {
			return 0, fmt.Errorf("%s%s has shape %v", CheckpointPrefix, key, t.Size)
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
	get(&c.DModel, "in_proj.weight", 0)
	get(&c.DInner, "layers.0.mixer.in_proj.weight", 0)
	get(&c.DState, "layers.0.mixer.A_log", 1)
	get(&c.DTRank, "layers.0.mixer.dt_proj.weight", 1)
	get(&c.DConv, "layers.0.mixer.conv1d.weight", 2)
	if err != nil {
		return nil, err
	}
	c.DInner /= 2
	for _, ok := found["layers."+strconv.Itoa(c.Layers)+".norm.weight"]; ok; _, ok = found["layers."+strconv.Itoa(c.Layers)+".norm.weight"] {
		c.Layers++
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	w := newWeights(c)
	used := map[string]bool{}
	for _, p := range w.params() {
		t, ok := found[p.name]
		if !ok {
			return nil, fmt.Errorf("missing %s%s", CheckpointPrefix, p.name)
		}
		used[p.name] = true
		if !equalInts(t.Size, p.shape) {
			return nil, fmt.Errorf("%s%s has shape %v, want %v", CheckpointPrefix, p.name, t.Size, p.shape)
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
		return nil, fmt.Errorf("unexpected encoder parameters %v", extra)
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

// WriteCheckpoint writes w as a PyTorch Lightning checkpoint, in the layout
// torch.save writes (zip: archive/data.pkl with pickle protocol 2,
// archive/data/N raw little-endian float32 storages, archive/version), with
// the encoder under CheckpointPrefix and extra lists additional tensors to
// store (e.g. decoder weights a loader must skip). For tests and for
// converting weights; it writes to out only.
func WriteCheckpoint(out io.Writer, w *Weights, extra map[string][]float32) error {
	if err := w.check(); err != nil {
		return err
	}
	type entry struct {
		key   string
		shape []int
		data  []float32
	}
	var entries []entry
	for _, p := range w.params() {
		entries = append(entries, entry{CheckpointPrefix + p.name, p.shape, *p.data})
	}
	extraKeys := make([]string, 0, len(extra))
	for k := range extra {
		extraKeys = append(extraKeys, k)
	}
	sort.Strings(extraKeys)
	for _, k := range extraKeys {
		entries = append(entries, entry{k, []int{len(extra[k])}, extra[k]})
	}

	var pk pickler
	pk.raw(0x80, 2)       // PROTO 2
	pk.raw('}', '(')      // EMPTY_DICT, MARK
	pk.str("epoch")       //
	pk.int(0)             //
	pk.str("global_step") //
	pk.int(0)
	pk.str("pytorch-lightning_version")
	pk.str("2.4.0")
	pk.str("state_dict")
	pk.global("collections", "OrderedDict")
	pk.raw(')', 'R', '(') // EMPTY_TUPLE, REDUCE, MARK
	for i, e := range entries {
		pk.str(e.key)
		pk.global("torch._utils", "_rebuild_tensor_v2")
		pk.raw('(') // args
		pk.raw('(')
		pk.str("storage")
		pk.global("torch", "FloatStorage")
		pk.str(strconv.Itoa(i))
		pk.str("cpu")
		pk.int(len(e.data))
		pk.raw('t', 'Q') // TUPLE, BINPERSID
		pk.int(0)        // storage offset
		pk.ints(e.shape)
		stride := make([]int, len(e.shape))
		for a, s := len(e.shape)-1, 1; a >= 0; a-- {
			stride[a] = s
			s *= e.shape[a]
		}
		pk.ints(stride)
		pk.raw(0x89) // NEWFALSE: requires_grad
		pk.global("collections", "OrderedDict")
		pk.raw(')', 'R') // backward hooks
		pk.raw('t', 'R') // TUPLE, REDUCE
	}
	pk.raw('u', 'u', '.') // SETITEMS (state_dict), SETITEMS (top), STOP

	zw := zip.NewWriter(out)
	put := func(name string, data []byte) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: "archive/" + name, Method: zip.Store})
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	if err := put("data.pkl", pk.buf.Bytes()); err != nil {
		return err
	}
	for i, e := range entries {
		raw := make([]byte, 4*len(e.data))
		for j, v := range e.data {
			binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(v))
		}
		if err := put("data/"+strconv.Itoa(i), raw); err != nil {
			return err
		}
	}
	if err := put("version", []byte("3\n")); err != nil {
		return err
	}
	return zw.Close()
}

// pickler writes the few pickle opcodes a state_dict needs.
type pickler struct{ buf bytes.Buffer }

func (p *pickler) raw(b ...byte) { p.buf.Write(b) }

func (p *pickler) str(s string) { // BINUNICODE
	p.buf.WriteByte('X')
	_ = binary.Write(&p.buf, binary.LittleEndian, uint32(len(s)))
	p.buf.WriteString(s)
}

func (p *pickler) int(v int) { // BININT
	p.buf.WriteByte('J')
	_ = binary.Write(&p.buf, binary.LittleEndian, int32(v))
}

func (p *pickler) ints(vs []int) { // MARK ... TUPLE
	p.buf.WriteByte('(')
	for _, v := range vs {
		p.int(v)
	}
	p.buf.WriteByte('t')
}

func (p *pickler) global(module, name string) { // GLOBAL
	p.buf.WriteString("c" + module + "\n" + name + "\n")
}
