package bio2token

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"sort"
	"strconv"
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
// The full list is Weights.AllParams.
const CheckpointPrefix = "model.encoder."

// DecoderPrefix is the state_dict prefix of the decoder, which tokenizing
// does not need: the loader skips it.
const DecoderPrefix = "model.decoder."

// ErrCheckpointLayout classifies a checkpoint whose state_dict is not the
// official layout: a missing, unexpected or misshapen tensor. The error
// names the key.
var ErrCheckpointLayout = errors.New("checkpoint layout")

// CheckpointTensor is one tensor to write: its state_dict key, shape and
// row-major data.
type CheckpointTensor struct {
	Key   string
	Shape []int
	Data  []float32
}

// WriteCheckpoint writes w as a PyTorch Lightning checkpoint in the official
// layout (every tensor of Weights.AllParams under CheckpointPrefix), in the
// form torch.save writes (zip: archive/data.pkl with pickle protocol 2,
// archive/data/N raw little-endian float32 storages, archive/version);
// extra lists additional 1-D tensors to store after them (e.g. decoder
// weights a loader must skip). For tests and for converting weights; it
// writes to out only.
func WriteCheckpoint(out io.Writer, w *Weights, extra map[string][]float32) error {
	if err := w.Check(); err != nil {
		return err
	}
	var entries []CheckpointTensor
	for _, p := range w.AllParams() {
		entries = append(entries, CheckpointTensor{CheckpointPrefix + p.Name, p.Shape, *p.Data})
	}
	extraKeys := make([]string, 0, len(extra))
	for k := range extra {
		extraKeys = append(extraKeys, k)
	}
	sort.Strings(extraKeys)
	for _, k := range extraKeys {
		entries = append(entries, CheckpointTensor{k, []int{len(extra[k])}, extra[k]})
	}
	return WriteTensors(out, entries)
}

// WriteTensors writes entries as a Lightning checkpoint's state_dict, in
// order, with contiguous strides.
func WriteTensors(out io.Writer, entries []CheckpointTensor) error {
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
		pk.str(e.Key)
		pk.global("torch._utils", "_rebuild_tensor_v2")
		pk.raw('(') // args
		pk.raw('(')
		pk.str("storage")
		pk.global("torch", "FloatStorage")
		pk.str(strconv.Itoa(i))
		pk.str("cpu")
		pk.int(len(e.Data))
		pk.raw('t', 'Q') // TUPLE, BINPERSID
		pk.int(0)        // storage offset
		pk.ints(e.Shape)
		stride := make([]int, len(e.Shape))
		for a, s := len(e.Shape)-1, 1; a >= 0; a-- {
			stride[a] = s
			s *= e.Shape[a]
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
		raw := make([]byte, 4*len(e.Data))
		for j, v := range e.Data {
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
