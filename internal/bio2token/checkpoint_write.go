package bio2token

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"sort"
	"strconv"
)

// tensorEntry is one tensor to write: its state_dict key, shape and
// row-major data.
type tensorEntry struct {
	key   string
	shape []int
	data  []float32
}

// WriteCheckpoint writes w as a PyTorch Lightning checkpoint in the official
// layout (every tensor of Weights.allParams under CheckpointPrefix), in the
// form torch.save writes (zip: archive/data.pkl with pickle protocol 2,
// archive/data/N raw little-endian float32 storages, archive/version);
// extra lists additional 1-D tensors to store after them (e.g. decoder
// weights a loader must skip). For tests and for converting weights; it
// writes to out only.
func WriteCheckpoint(out io.Writer, w *Weights, extra map[string][]float32) error {
	if err := w.check(); err != nil {
		return err
	}
	var entries []tensorEntry
	for _, p := range w.allParams() {
		entries = append(entries, tensorEntry{CheckpointPrefix + p.name, p.shape, *p.data})
	}
	extraKeys := make([]string, 0, len(extra))
	for k := range extra {
		extraKeys = append(extraKeys, k)
	}
	sort.Strings(extraKeys)
	for _, k := range extraKeys {
		entries = append(entries, tensorEntry{k, []int{len(extra[k])}, extra[k]})
	}
	return writeTensors(out, entries)
}

// writeTensors writes entries as a Lightning checkpoint's state_dict, in
// order, with contiguous strides.
func writeTensors(out io.Writer, entries []tensorEntry) error {
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
